"""Entities and relationships the graph-store suites build."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from redstring.domain.blocking import MAX_BLOCK_MEMBERS
from redstring.domain.entity import Entity, Relationship
from redstring.domain.ids import EntityId, TenantId
from redstring.ports.graph_store import GraphStore


def person(
    tenant: TenantId, name: str, entity_id: EntityId | None = None, **fields: object
) -> Entity:
    """A person named `name` in `tenant`, with `entity_id` when given."""
    data: dict[str, object] = {"tenant_id": tenant, "entity_type": "person", "name": name, **fields}
    if entity_id is not None:
        data["id"] = entity_id
    return Entity.model_validate(data)


def edge(source: Entity, target: Entity, kind: str = "knows") -> Relationship:
    """A relationship from `source` to `target` in `source`'s tenant, stated by one document."""
    return Relationship(
        tenant_id=source.tenant_id,
        source_id=source.id,
        target_id=target.id,
        relationship_type=kind,
        source_document_ids=["doc-1"],
    )


async def filed_ids(
    store: GraphStore, keys: Sequence[str], tenant: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
) -> dict[str, list[EntityId]]:
    """`find_ids_by_blocking_keys`, its id numbers (each checked to be an `int`) read as ids."""
    found = await store.find_ids_by_blocking_keys(keys, tenant, limit=limit)
    assert all(type(n) is int for numbers in found.values() for n in numbers)
    return {key: [EntityId(UUID(int=n)) for n in numbers] for key, numbers in found.items()}
