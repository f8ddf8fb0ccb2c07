"""Appending events and folding them, live or by replay."""

from __future__ import annotations

from collections.abc import Sequence

from redstring.domain.events import Event
from redstring.domain.ids import TenantId
from redstring.ports.event_log import EventLog, ProjectionPositions
from redstring.projections.base import Projection

REPLAY_BATCH = 500


class EventSink:
    """Appends events to `log`, then folds each stored event into every projection, in order.

    When `log` records positions (`ProjectionPositions`), each projection's
    position is recorded after its fold, so a crash between the append and the
    fold leaves a position behind the log for `catch_up` (ADR 0132).
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
        await _record(self.log, self._projections, stored)
        return stored


async def _record(
    log: EventLog, projections: Sequence[Projection], folded: Sequence[Event]
) -> None:
    if not isinstance(log, ProjectionPositions):
        return
    last: dict[TenantId, int] = {}
    for event in folded:
        if event.sequence is not None:
            last[event.tenant_id] = max(last.get(event.tenant_id, 0), event.sequence)
    for tenant_id, sequence in last.items():
        for projection in projections:
            await log.record_position(tenant_id, projection.name, sequence)


async def catch_up(
    log: EventLog, tenant_id: TenantId, projections: Sequence[Projection]
) -> dict[str, int]:
    """Fold into each projection the events of `tenant_id` after its recorded position.

    Returns each projection's position after catching up. A log that records
    no positions (`ProjectionPositions`) is left alone and `{}` returned.
    Folding is idempotent, so an event folded before a crash and folded again
    here changes nothing.
    """
    if not isinstance(log, ProjectionPositions):
        return {}
    last = await log.last_sequence(tenant_id)
    positions: dict[str, int] = {}
    for projection in projections:
        position = await log.position(tenant_id, projection.name)
        if position < last:
            position = await replay(log, tenant_id, [projection], after=position)
            await log.record_position(tenant_id, projection.name, position)
        positions[projection.name] = position
    return positions


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
