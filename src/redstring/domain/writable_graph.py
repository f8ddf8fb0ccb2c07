"""What a graph store checks before it writes: entities and relationships it can read back."""

from __future__ import annotations

from redstring.domain.entity import Entity, Relationship
from redstring.domain.validation import (
    require_instances,
    require_name,
    require_storable_json,
    require_storable_text,
    require_tenant_id,
)


def require_writable_graph(entities: object, relationships: object) -> None:
    """Every entity and relationship a store is asked to write can be stored and read back.

    Each must be an `Entity` / `Relationship` (a dict is refused naming its
    place); text fields must be encodable (no lone surrogate) and hold no NUL
    (PostgreSQL cannot store one, ADR 0645), and `properties` finite JSON of
    such text, so memory, SQLite and PostgreSQL hold the same thing. Called by
    each graph store's `upsert` before it writes anything.
    """
    for index, entity in enumerate(require_instances("entities", entities, Entity)):
        where = f"entities[{index}]"
        require_tenant_id(entity.tenant_id, name=f"{where}.tenant_id")
        for field in ("entity_type", "name", "normalized_name", "description"):
            require_storable_text(f"{where}.{field}", getattr(entity, field))
        require_name(f"{where}.name", entity.name)
        for position, alias in enumerate(entity.aliases):
            require_storable_text(f"{where}.aliases[{position}]", alias)
            require_name(f"{where}.aliases[{position}]", alias)
        for position, document_id in enumerate(entity.source_document_ids):
            require_storable_text(f"{where}.source_document_ids[{position}]", document_id)
        require_storable_json(f"{where}.properties", entity.properties)
    for index, relationship in enumerate(
        require_instances("relationships", relationships, Relationship)
    ):
        where = f"relationships[{index}]"
        require_tenant_id(relationship.tenant_id, name=f"{where}.tenant_id")
        require_storable_text(f"{where}.relationship_type", relationship.relationship_type)
        require_storable_text(f"{where}.description", relationship.description)
        for position, document_id in enumerate(relationship.source_document_ids):
            require_storable_text(f"{where}.source_document_ids[{position}]", document_id)
        require_storable_json(f"{where}.properties", relationship.properties)
