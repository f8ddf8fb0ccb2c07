"""Test factories shared across the suite."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from redstring import Entity, TenantId

DEFAULT_TENANT = TenantId(UUID("11111111-1111-4111-8111-111111111111"))


def make_entity(
    name: str = "Ada Lovelace",
    *,
    tenant_id: TenantId = DEFAULT_TENANT,
    entity_type: str = "person",
    **fields: Any,
) -> Entity:
    """An `Entity` with sensible defaults; any field can be overridden."""
    return Entity.model_validate(
        {"tenant_id": tenant_id, "entity_type": entity_type, "name": name, **fields}
    )
