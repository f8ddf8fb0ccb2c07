"""Reads of a SQLite file on read-only connections of their own, each in a thread of its own.

`ApartReads` runs work that takes seconds (a tenant read whole) without the
file's shared connection: each read opens its own `mode=ro` connection to
the file, runs in one read transaction there (in WAL mode a snapshot of the
committed rows: a batch's uncommitted writes on the shared connection are
not seen, and nothing on it waits), and hands its answer back as a
`Future`. `close` stops every read still running (its statement ends at
once, the Python work after it is not cut), waits for its thread and
connection to end, and leaves its `Future` cancelled; a read asked after
`close` is cancelled at once.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Future
from functools import partial

from redstring.storage.sqlite_errors import translate_sqlite_error

#: The SQLite virtual machine steps between two checks of whether the reads were closed.
_CHECK_EVERY = 10_000


def _spawn(run: Callable[[], None]) -> threading.Thread | None:
    """`run` started in a daemon thread of its own; `None` when it was run in place (tests)."""
    thread = threading.Thread(target=run, name="redstring-sqlite-apart", daemon=True)
    thread.start()
    return thread


class ApartReads:
    """The reads running on connections of their own to the file at `uri` (a `file:` URI)."""

    def __init__(self, uri: str, busy_timeout: float) -> None:
        self._uri = uri
        self._busy_timeout = busy_timeout
        self._lock = threading.RLock()  # an in-place `_spawn` re-enters it
        self._closed = False
        self._running: dict[int, threading.Thread] = {}

    def read[T](self, work: Callable[[sqlite3.Connection], T], *, store: str) -> Future[T]:
        """`work`'s answer, read in a thread on a connection of its own, as it will stand.

        The future holds a `StoreUnavailableError` when the connection fails,
        or whatever `work` raised.
        """
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                future.cancel()
                return future
            try:
                connection = sqlite3.connect(
                    self._uri,
                    timeout=self._busy_timeout,
                    isolation_level=None,
                    check_same_thread=False,
                    uri=True,
                )
            except sqlite3.Error as error:
                future.set_exception(_translated(error, store))
                return future

            def run() -> None:
                try:
                    # A statement running when `close` is called stops at its next check.
                    connection.set_progress_handler(lambda: self._closed, _CHECK_EVERY)
                    connection.execute("BEGIN")
                    answer = work(connection)
                except BaseException as error:
                    settle = partial(future.set_exception, _translated(error, store))
                else:
                    settle = partial(future.set_result, answer)
                finally:
                    connection.close()
                    with self._lock:
                        self._running.pop(id(connection), None)
                if self._closed:
                    future.cancel()
                else:
                    settle()

            thread = _spawn(run)  # `run` waits for this lock before it ends
            if thread is not None:
                self._running[id(connection)] = thread
        return future

    def close(self) -> None:
        """Stop every read still running (its statement at its next check) and wait for it."""
        with self._lock:
            self._closed = True
            running = list(self._running.values())
        for thread in running:
            thread.join()


def _translated(error: BaseException, store: str) -> BaseException:
    if not isinstance(error, sqlite3.Error):
        return error
    return translate_sqlite_error(error, store=store)
