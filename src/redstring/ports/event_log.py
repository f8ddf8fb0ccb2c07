"""An append-only log of the write path's events, per tenant."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from redstring.domain.events import Event
from redstring.domain.ids import TenantId


@runtime_checkable
class EventLog(Protocol):
    """Appends events and reads them back in order, per tenant."""

    async def append(self, events: Sequence[Event]) -> list[Event]:
        """Append `events` atomically and return them as stored, with `sequence` set.

        Each tenant's sequence runs 1, 2, 3, ... without gaps, in the order
        given. An event whose `event_id` its tenant's log already holds is not
        appended again; the stored copy is returned in its place.
        """
        ...

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[Event]:
        """`tenant_id`'s events with `sequence > after`, ascending, at most `limit`.

        `after < 0` or `limit < 0` raises `ValueError`; `limit=0` returns `[]`.
        """
        ...

    async def last_sequence(self, tenant_id: TenantId) -> int:
        """The sequence of `tenant_id`'s last event; 0 for an empty log."""
        ...


@runtime_checkable
class ProjectionPositions(Protocol):
    """How far each projection of a tenant has folded the log (ADR 0132)."""

    async def position(self, tenant_id: TenantId, projection: str) -> int:
        """The sequence of the last event `projection` folded for `tenant_id`; 0 if none."""
        ...

    async def record_position(self, tenant_id: TenantId, projection: str, sequence: int) -> None:
        """Record that `projection` has folded `tenant_id`'s events up to `sequence`.

        A position never moves back: a smaller `sequence` than the stored one is ignored.
        """
        ...

    async def lagging_tenants(self, projections: Sequence[str]) -> list[TenantId]:
        """The tenants some of `projections` have not folded to the log's end, by id string.

        One read of every tenant, for catching up on open (B130).
        """
        ...
