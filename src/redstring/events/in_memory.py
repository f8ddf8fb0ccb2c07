"""An event log held in process memory."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from redstring.domain.events import Event
from redstring.domain.ids import TenantId
from redstring.domain.validation import require_tenant_id
from redstring.events.reading import check_read_bounds, lagging
from redstring.storage.describe import DescribedStore


@dataclass
class _Tenant:
    events: list[Event] = field(default_factory=list)
    by_id: dict[UUID, Event] = field(default_factory=dict)


class InMemoryEventLog(DescribedStore):
    """An `EventLog` (and `AnswerMemory`) for a single process: complete, tenant-scoped,
    not a test double.

    Events and answers are copied on the way in and out, so a caller mutating
    one cannot change the log.
    """

    def __init__(self) -> None:
        self._tenants: dict[TenantId, _Tenant] = {}
        self._positions: dict[tuple[TenantId, str], int] = {}
        self._answers: dict[tuple[TenantId, str], str] = {}

    async def append(self, events: Sequence[Event]) -> list[Event]:
        stored: list[Event] = []
        pending: dict[TenantId, list[Event]] = {}
        for event in events:
            part = self._tenants.get(event.tenant_id, _Tenant())
            earlier = part.by_id.get(event.event_id) or next(
                (e for e in pending.get(event.tenant_id, []) if e.event_id == event.event_id),
                None,
            )
            if earlier is not None:
                stored.append(earlier)
                continue
            queued = pending.setdefault(event.tenant_id, [])
            sequence = len(part.events) + len(queued) + 1
            copy = event.model_copy(update={"sequence": sequence}, deep=True)
            queued.append(copy)
            stored.append(copy)
        for tenant_id, queued in pending.items():
            part = self._tenants.setdefault(tenant_id, _Tenant())
            part.events.extend(queued)
            part.by_id.update((event.event_id, event) for event in queued)
        return [event.model_copy(deep=True) for event in stored]

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[Event]:
        require_tenant_id(tenant_id)
        check_read_bounds(after, limit)
        part = self._tenants.get(tenant_id)
        if part is None:
            return []
        selected = part.events[after:] if limit is None else part.events[after : after + limit]
        return [event.model_copy(deep=True) for event in selected]

    async def last_sequence(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        return 0 if part is None else len(part.events)

    async def position(self, tenant_id: TenantId, projection: str) -> int:
        require_tenant_id(tenant_id)
        return self._positions.get((tenant_id, projection), 0)

    async def record_position(self, tenant_id: TenantId, projection: str, sequence: int) -> None:
        require_tenant_id(tenant_id)
        key = (tenant_id, projection)
        self._positions[key] = max(self._positions.get(key, 0), sequence)

    async def lagging_tenants(self, projections: Sequence[str]) -> list[TenantId]:
        lasts = [(tenant, len(part.events)) for tenant, part in self._tenants.items()]
        held = [(tenant, name, sequence) for (tenant, name), sequence in self._positions.items()]
        return lagging(lasts, held, projections)

    async def recall(self, tenant_id: TenantId, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        require_tenant_id(tenant_id)
        held = ((key, self._answers.get((tenant_id, key))) for key in keys)
        return {key: json.loads(value) for key, value in held if value is not None}

    async def remember(self, tenant_id: TenantId, key: str, value: dict[str, Any]) -> None:
        require_tenant_id(tenant_id)
        self._answers[(tenant_id, key)] = json.dumps(value)
