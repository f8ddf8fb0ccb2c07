"""Entities and relationships the graph-store suites build."""

from __future__ import annotations

from redstring.domain.entity import Entity, Relationship
from redstring.domain.ids import EntityId, TenantId


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
