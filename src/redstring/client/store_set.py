"""The stores one `--db` value opens, as the commands see them, and a client's hold on them."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable, Coroutine
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Concatenate, Protocol

from redstring.domain.errors import ClientClosedError, ClientLoopError, InvalidArgumentError
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.event_log import EventLog
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore


@dataclass(frozen=True)
class StoreSet:
    """The graph, vector and chunk stores and the event log of one database.

    `chunks` is `None` for a backend without a chunk store, and `events` for
    one without an event log (`build` then logs in memory only). `backend`
    names the kind of database ("SQLite", "PostgreSQL") for messages.
    """

    backend: str
    graph: GraphStore
    vectors: VectorStore
    chunks: ChunkStore | None
    events: EventLog | None = None


class StoreOpener(Protocol):
    """Opens the stores of one `--db` value for the length of an `async with`."""

    def __call__(
        self,
        db: str,
        *,
        dimension: int | None,
        create: bool,
        migrate: bool,
        language: str | None = None,
    ) -> AbstractAsyncContextManager[StoreSet]:
        """`dimension=None` takes the one the database records; `create=False`
        raises `DatabaseNotFoundError` for a database that does not exist;
        `language` is the passages' text analysis (`None`: the database's)."""
        ...


#: How the client calls an opener, as a message shows it.
OPENER_SIGNATURE = "opener(db, *, dimension, create, migrate, language)"


def require_opener(opener: object) -> StoreOpener:
    """`opener` if the client can call it as a `StoreOpener`; else `InvalidArgumentError`
    naming `opener` and the signature it must take.

    A callable whose signature cannot be read (some built-ins) is taken on trust.
    """
    requirement = (
        f"a callable the client calls as {OPENER_SIGNATURE}, returning an async context "
        "manager of a StoreSet (e.g. an @asynccontextmanager function)"
    )
    if not callable(opener):
        raise InvalidArgumentError(name="opener", value=opener, requirement=requirement)
    try:
        signature = inspect.signature(opener)
    except (TypeError, ValueError):
        return opener
    try:
        signature.bind("graph.db", dimension=None, create=True, migrate=False, language=None)
    except TypeError as refused:
        raise InvalidArgumentError(
            name="opener",
            value=opener,
            requirement=requirement,
            message=(
                f"opener={opener!r} cannot be called as {OPENER_SIGNATURE} ({refused}): "
                "give it those parameters, e.g. "
                "async def opener(db, *, dimension, create, migrate, language=None)."
            ),
        ) from None
    return opener


@dataclass
class _Flight:
    """A call in flight: its task's cancel requests when it began, whether `close()`
    cancelled it, and when it ended."""

    cancelling: int
    cancelled: bool = False
    ended: asyncio.Event = field(default_factory=asyncio.Event)


class HeldStores:
    """The stores of one client: opened on first use, once, in one event loop (ADR 0525).

    `open_stores()` gives the context manager that opens them; `client` names
    the client's class in `ClientClosedError`. Calls that arrive while they
    open wait for that open and share its stores; should it fail or be
    cancelled, the next waiting call opens them itself. The loop of the open
    under way, then of the stores, is the only one calls may come from
    (`ClientLoopError`); after `close()` every call raises `ClientClosedError`,
    and so does a call `close()` ended (see `run`).
    """

    def __init__(
        self, open_stores: Callable[[], AbstractAsyncContextManager[StoreSet]], *, client: str
    ) -> None:
        self._open_stores = open_stores
        self._client = client
        self._stack: AsyncExitStack | None = None
        self._stores: StoreSet | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # of the stores, or of their open
        self._opening: asyncio.Event | None = None  # set when the open under way has ended
        self._calls: dict[asyncio.Task[Any], _Flight] = {}
        self._deferred: tuple[asyncio.Task[Any], AsyncExitStack, asyncio.Event] | None = None
        self.closed = False

    def check(self, method: str) -> None:
        """Raise for `method` when the client is closed or called from another loop."""
        if self.closed:
            raise ClientClosedError(method=method, client=self._client)
        if self._loop is not None and self._loop is not asyncio.get_running_loop():
            raise ClientLoopError(method=method)

    async def run[T](self, method: str, call: Coroutine[Any, Any, T]) -> T:
        """Await `call`, a call of `method`, as a call in flight.

        `close()` from another task cancels it and waits for it to end before
        the stores close; it then raises `ClientClosedError`, and its task is
        left uncancelled. A `close()` awaited inside it (in its task, or in a
        task it started) cancels it too, and the stores close as it ends,
        before it raises. A cancellation of the caller's own stays one. A
        call made inside a call in flight (same task) is part of it.
        """
        task = asyncio.current_task()
        if task is None or task in self._calls:
            return await call
        flight = self._calls[task] = _Flight(task.cancelling())
        inside = _INSIDE.set((*_INSIDE.get(), (self, task)))
        try:
            return await call
        except asyncio.CancelledError:
            ours, flight.cancelled = flight.cancelled, False
            if not ours or task.uncancel() > flight.cancelling:
                raise  # cancelled by someone else (too)
            raise ClientClosedError(method=method, client=self._client) from None
        finally:
            _INSIDE.reset(inside)
            if flight.cancelled:  # the call ended otherwise: take the request back
                task.uncancel()
            del self._calls[task]
            flight.ended.set()
            if self._deferred is not None and self._deferred[0] is task:
                await self._close_deferred(pending=flight.cancelled)

    async def stores(self, method: str) -> StoreSet:
        """The stores, opened by this call unless another call opened or is opening them."""
        while True:
            self.check(method)
            if self._stores is not None:
                return self._stores
            if self._opening is None:
                return await self._open(method)
            await self._opening.wait()

    async def _open(self, method: str) -> StoreSet:
        opened = self._opening = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        stack = AsyncExitStack()
        try:
            stores = await stack.enter_async_context(self._open_stores())
            if self.closed:  # `close()` came while they opened; it waits for this
                await stack.aclose()
                raise ClientClosedError(method=method, client=self._client)
            self._stack, self._stores = stack, stores
            return stores
        finally:
            if self._stores is None:
                self._loop = None  # an open that failed binds no loop
            self._opening = None
            opened.set()

    async def close(self) -> None:
        """Close the stores. Closing twice is harmless.

        An open under way in this loop is waited for (it closes what it
        opened). The calls in flight in the stores' loop are cancelled and
        waited for first (they raise `ClientClosedError`), so no store closes
        under a call; from inside a call (ADR 0650), that call is cancelled
        last and closes the stores as it ends. From another event loop than
        theirs, the stores close on their own loop while it runs, else here (an
        ended `asyncio.run` closed them, and ended its calls).
        """
        self.closed = True
        opening, loop = self._opening, self._loop
        if opening is not None and loop is asyncio.get_running_loop() and self._inside() is None:
            await opening.wait()  # from inside a call, that open may be its own: it closes
        stack, self._stack, self._stores = self._stack, None, None
        if stack is None:
            if self._deferred is not None and self._deferred[0] is not self._inside():
                await self._deferred[2].wait()  # a call closing the client ends first
            return
        if loop is None or loop is asyncio.get_running_loop() or not loop.is_running():
            await self._shut(stack)
        else:
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self._shut(stack), loop))

    def _inside(self) -> asyncio.Task[Any] | None:
        """The task of this client's call in flight the running code is part of, if any."""
        for held, task in _INSIDE.get()[::-1]:
            if held is self and task in self._calls:
                return task
        return None

    async def _shut(self, stack: AsyncExitStack) -> None:
        """End the calls in flight in this loop but the one the running code is part of
        (and the current task's), then close `stack`; when inside a call, cancel that
        call last and leave `stack` for it to close as it ends (`run`): the call cannot
        be waited for from inside it."""
        here, current, inside = asyncio.get_running_loop(), asyncio.current_task(), self._inside()
        flights = [
            (task, flight)
            for task, flight in list(self._calls.items())
            if task not in (current, inside) and task.get_loop() is here and not task.done()
        ]
        for task, flight in flights:
            flight.cancelled = True
            task.cancel()
        for _, flight in flights:
            await flight.ended.wait()
        if inside is None or inside.get_loop() is not here:
            await stack.aclose()
            return
        self._deferred = (inside, stack, asyncio.Event())
        self._calls[inside].cancelled = True
        inside.cancel()

    async def _close_deferred(self, *, pending: bool) -> None:
        """Close the stores a `close()` inside the ending call left to it; `pending` is
        whether that close's cancel request was never delivered (the call did not pause
        again), so it arrives here instead, once, and is not the caller's."""
        assert self._deferred is not None
        _, stack, closed = self._deferred
        closing = asyncio.ensure_future(stack.aclose())
        try:
            while not closing.done():
                try:
                    await asyncio.shield(closing)
                except asyncio.CancelledError:
                    if not pending:
                        raise
                    pending = False
        finally:
            closed.set()


#: The calls in flight the running code is part of, each as its client's hold and the
#: call's task: set by `HeldStores.run` in that task, and seen by the tasks it starts.
_INSIDE: ContextVar[tuple[tuple[HeldStores, asyncio.Task[Any]], ...]] = ContextVar(
    "redstring_calls_inside", default=()
)


class _Holder(Protocol):
    _held: HeldStores


def held_call[H: _Holder, **P, T](
    method: Callable[Concatenate[H, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[H, P], Coroutine[Any, Any, T]]:
    """`method` of a client, run as a call in flight of the client's `_held` (`HeldStores.run`)."""
    name = method.__name__

    @functools.wraps(method)
    async def call(client: H, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await client._held.run(name, method(client, *args, **kwargs))

    return call
