"""A concurrency limit that shrinks when a server shows it answers fewer requests at once.

A server with one slot (llama.cpp's, by default) queues whatever else is sent,
and the queueing counts against each waiting request's timeout; a request the
client gave up on may still run there to its end. `AdaptiveLimit` tells a
request how much company it had on the server (requests in flight, and those
abandoned within the last `window` seconds), halves its limit when a request
with company timed out, and grows it back by one after `GROW_AFTER` times the
limit successes in a row (ADR 0151).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

#: Successes in a row, per unit of the current limit, before the limit grows by one.
GROW_AFTER = 8


class AdaptiveLimit:
    """At most `limit` holders at once; `limit` moves between 1 and `maximum`."""

    def __init__(self, maximum: int, *, window: float) -> None:
        self.maximum = maximum
        self.limit = maximum
        self.in_flight = 0
        self._window = window
        self._abandoned: deque[float] = deque()
        self._successes = 0
        self._changed = asyncio.Condition()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[int]:
        """Hold a slot; yields the company it had: others in flight or recently abandoned."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.in_flight < self.limit)
            now = asyncio.get_running_loop().time()
            while self._abandoned and self._abandoned[0] < now - self._window:
                self._abandoned.popleft()
            company = self.in_flight + len(self._abandoned)
            self.in_flight += 1
        try:
            yield company
        finally:
            async with self._changed:
                self.in_flight -= 1
                self._changed.notify_all()

    def shed(self) -> None:
        """A request with company timed out: halve the limit (not below 1), note it abandoned."""
        self.limit = max(1, self.limit // 2)
        self._successes = 0
        self._abandoned.append(asyncio.get_running_loop().time())

    def succeeded(self) -> None:
        """Count a success; grow the limit by one after enough in a row."""
        self._successes += 1
        if self.limit < self.maximum and self._successes >= GROW_AFTER * self.limit:
            self.limit += 1
            self._successes = 0
