"""`LoopThread`: the one bridge from blocking code to coroutines.

An event loop runs in a daemon thread; `run` hands it a coroutine and waits
for the result from any other thread. It never leaves a caller waiting:

- a call from the loop's own thread (a callback of a running call) cannot
  be served while that thread waits, so it raises `ReentrantCallError`;
- a caller interrupted while it waits (`KeyboardInterrupt` from Ctrl-C,
  `SystemExit`) cancels its call and waits for it to end before the
  interruption goes on, so nothing keeps running behind the caller's back;
- `stop` cancels the calls in flight, whose callers get `ClientClosedError`,
  runs an optional last coroutine (closing stores), stops the loop and shuts
  its worker threads down on its own thread (an interpreter shutting down
  refuses to start the one `shutdown_default_executor` would);
- a `LoopThread` nobody stopped is stopped by its owner's finalizer
  (`stop_when_collected`), so dropped clients leave no threads behind.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import weakref
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from redstring.domain.errors import ClientClosedError, ReentrantCallError

type Closing = Callable[[], Coroutine[Any, Any, object]]


def _serve(loop: asyncio.AbstractEventLoop, workers: ThreadPoolExecutor) -> None:
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        try:
            loop.run_until_complete(asyncio.sleep(0))  # the callbacks `stop` left (its result)
            # Not `shutdown_default_executor`: it starts a thread to wait in, and a
            # client stopped at interpreter exit (its finalizer) may start none.
            workers.shutdown(wait=True)
        finally:
            loop.close()


class LoopThread:
    """An event loop in its own daemon thread, called from blocking code.

    `name` names the thread. Calls run concurrently on the loop; `run` blocks
    its caller until its coroutine ends.
    """

    def __init__(self, name: str) -> None:
        self._loop = asyncio.new_event_loop()
        workers = ThreadPoolExecutor(thread_name_prefix=f"{name}-worker")
        self._loop.set_default_executor(workers)
        self._lock = threading.Lock()
        # each call in flight: its caller's future, and the coroutine its task runs
        self._pending: dict[concurrent.futures.Future[Any], Coroutine[Any, Any, Any]] = {}
        self._stopping = False
        self._thread = threading.Thread(
            target=_serve, args=(self._loop, workers), name=name, daemon=True
        )
        self._thread.start()

    def on_loop_thread(self) -> bool:
        """Whether the caller is the loop's own thread."""
        return threading.current_thread() is self._thread

    def run[T](self, call: Coroutine[Any, Any, T], *, method: str) -> T:
        """Run `call` on the loop and return its result; `method` names it in errors.

        Raises `ClientClosedError` once `stop` has begun (also for a call it
        cancelled) and `ReentrantCallError` from the loop's own thread. An
        exception raised in the waiting thread itself (`KeyboardInterrupt`,
        `SystemExit`) cancels the call, waits for it to end, and goes on.
        """
        if self.on_loop_thread():
            call.close()
            raise ReentrantCallError(method=method)
        with self._lock:
            if self._stopping:
                call.close()
                raise ClientClosedError(method=method)
            future = asyncio.run_coroutine_threadsafe(call, self._loop)
            self._pending[future] = call
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise ClientClosedError(method=method) from None
        except BaseException:
            if not future.done():  # raised in this thread while it waited, not by the call
                self._cancel(call)
            raise
        finally:
            with self._lock:
                self._pending.pop(future, None)

    def _cancel(self, call: Coroutine[Any, Any, Any]) -> None:
        """Cancel the task running `call` and wait until it has ended.

        A `stop` under way cancels it itself, and is not waited for.
        """
        with self._lock:
            if self._stopping:
                return
            cancelling = _end_calls([call])
            ended = asyncio.run_coroutine_threadsafe(cancelling, self._loop)
            self._pending[ended] = cancelling  # a `stop` from now on resolves it
        try:
            ended.result()
        except concurrent.futures.CancelledError:
            pass  # a `stop` began, and ends the call
        finally:
            with self._lock:
                self._pending.pop(ended, None)

    def stop(self, closing: Closing | None = None) -> None:
        """Cancel the calls in flight, run `closing()` on the loop, and end the thread.

        Stopping twice is harmless. From the loop's own thread it only
        begins the stop (the thread ends once the running callback returns).
        """
        with self._lock:
            if self._stopping:
                return
            self._stopping = True
            pending = dict(self._pending)
        # The loop closes only once `_wind_down` has stopped it, which only this
        # first `stop` schedules: it is still open here.
        calls = list(pending.values())
        finished = asyncio.run_coroutine_threadsafe(
            _wind_down(calls, closing, self._loop), self._loop
        )
        if self.on_loop_thread():
            return
        try:
            finished.result()
        finally:
            self._thread.join()
            for future in pending:  # each was cancelled and has resolved; none is left waiting
                future.cancel()

    def stop_when_collected(self, owner: object, closing: Closing | None = None) -> None:
        """Stop this loop thread when `owner` is garbage-collected without a `stop`."""
        weakref.finalize(owner, self.stop, closing)


async def _wind_down(
    calls: list[Coroutine[Any, Any, Any]],
    closing: Closing | None,
    loop: asyncio.AbstractEventLoop,
) -> None:
    """Cancel the tasks running `calls`, wait for them, run `closing`, stop `loop`.

    Only the calls are cancelled: a task a store keeps (a connection pool's
    worker) is the store's to end in `closing`, which may wait for it.
    """
    try:
        await _end_calls(calls)
        if closing is not None:
            await closing()
    finally:
        loop.stop()


async def _end_calls(calls: list[Coroutine[Any, Any, Any]]) -> None:
    """Cancel the tasks running `calls` and wait until they have ended."""
    tasks = [
        task
        for task in asyncio.all_tasks()
        if task is not asyncio.current_task() and not task.done() and task.get_coro() in calls
    ]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def run_to_end[T](work: Coroutine[Any, Any, T], *, method: str = "run") -> T:
    """Run `work` to its end on a loop thread of its own, from any code (also async code)."""
    bridge = LoopThread(f"redstring-{method}")
    try:
        return bridge.run(work, method=method)
    finally:
        bridge.stop()
