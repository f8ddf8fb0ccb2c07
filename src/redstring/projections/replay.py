"""Appending events and folding them, live or by replay."""

from __future__ import annotations

from collections.abc import Sequence

from redstring.domain.events import Event
from redstring.domain.ids import TenantId
from redstring.ports.event_log import EventLog
from redstring.projections.base import Projection

REPLAY_BATCH = 500


class EventSink:
    """Appends events to `log`, then folds each stored event into every projection, in order.

    `appended` counts the events this sink appended.
    """

    def __init__(self, log: EventLog, projections: Sequence[Projection]) -> None:
        self.log = log
        self._projections = list(projections)
        self.appended = 0

    async def emit(self, events: Sequence[Event]) -> list[Event]:
        """Append `events`, fold them, and return them as stored (with sequences)."""
        stored = await self.log.append(events)
        self.appended += len(stored)
        for event in stored:
            for projection in self._projections:
                await projection.apply(event)
        return stored


async def replay(
    log: EventLog,
    tenant_id: TenantId,
    projections: Sequence[Projection],
    *,
    after: int = 0,
) -> int:
    """Fold `tenant_id`'s events after position `after` into `projections`, in log order.

    Returns the sequence of the last event folded (`after` when none were).
    Replaying into empty stores rebuilds what the live projections hold.
    """
    position = after
    while True:
        batch = await log.read(tenant_id, after=position, limit=REPLAY_BATCH)
        for event in batch:
            for projection in projections:
                await projection.apply(event)
            position = event.sequence if event.sequence is not None else position
        if len(batch) < REPLAY_BATCH:
            return position
