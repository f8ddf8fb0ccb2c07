"""Every damaged row of a SQLite graph store, found by reading each row as a read would.

Each entity's JSON validates and names its own id and tenant, and its list
of filed keys is a JSON list of strings; each relationship's JSON validates,
names its own id and tenant, and the ends its columns hold. Nothing is written.
"""

from __future__ import annotations

import json
import sqlite3

from redstring.domain.damage import DamagedRow
from redstring.domain.entity import Entity, Relationship
from redstring.storage.damage import DECODE_FAILURES, damage_of


def damaged_graph_rows(connection: sqlite3.Connection) -> list[DamagedRow]:
    """Every damaged row of `graph_entities` and `graph_relationships`."""
    found: list[DamagedRow] = []
    for tenant, entity_id, body, keys in connection.execute(
        "SELECT tenant_id, id, body, keys FROM graph_entities ORDER BY tenant_id, id"
    ):
        try:
            entity = Entity.model_validate_json(_text(body))
            if str(entity.id) != entity_id or str(entity.tenant_id) != tenant:
                raise ValueError("its JSON holds another row's id or tenant")
            listed = json.loads(_text(keys))
            if not isinstance(listed, list) or not all(isinstance(k, str) for k in listed):
                raise ValueError("its list of filed keys is not a JSON list of strings")
        except DECODE_FAILURES as error:
            found.append(_damage("graph_entities", tenant, f"entity {entity_id}", error))
    for tenant, relationship_id, source_id, target_id, body in connection.execute(
        "SELECT tenant_id, id, source_id, target_id, body FROM graph_relationships"
        " ORDER BY tenant_id, id"
    ):
        try:
            relationship = Relationship.model_validate_json(_text(body))
            if str(relationship.id) != relationship_id or str(relationship.tenant_id) != tenant:
                raise ValueError("its JSON holds another row's id or tenant")
            if (str(relationship.source_id), str(relationship.target_id)) != (source_id, target_id):
                raise ValueError("its JSON joins other entities than its row's columns")
        except DECODE_FAILURES as error:
            found.append(
                _damage("graph_relationships", tenant, f"relationship {relationship_id}", error)
            )
    return found


def _damage(table: str, tenant: object, row: str, error: Exception) -> DamagedRow:
    return damage_of(table=table, tenant=str(tenant), row=row, error=error)


def _text(value: object) -> str | bytes:
    return value if isinstance(value, str | bytes) else str(value)
