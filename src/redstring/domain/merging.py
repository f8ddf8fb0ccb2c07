"""How two records of entities and relationships combine into one.

Two rules, both pure and deterministic:

- `combine_sightings`: the *same* entity (one id) seen twice, in two chunks
  or two documents. The earlier sighting's name and type spelling stand; the
  longer description wins (the earlier on a tie); properties keep the earlier
  value of a key and gain the later sighting's new keys; aliases and source
  documents are unions in first-seen order; confidence is the larger.
- `absorb`: a *different* entity folded into a survivor by consolidation. As
  above with the survivor as the earlier sighting, except that the absorbed
  entity's name joins the survivor's aliases and the survivor's description
  is kept unless it is blank.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pydantic import JsonValue

from redstring.domain.entity import Entity, Relationship
from redstring.domain.ids import EntityId
from redstring.domain.normalization import normalize_name


def combine_sightings(earlier: Entity, later: Entity) -> Entity:
    """One entity from two sightings of the same id; see the module docstring.

    Raises `ValueError` when the ids or tenants differ.
    """
    if earlier.id != later.id or earlier.tenant_id != later.tenant_id:
        raise ValueError(
            f"combine_sightings joins sightings of one entity, got {earlier.id} and {later.id}; "
            "use absorb to merge two different entities"
        )
    return earlier.model_copy(
        update={
            "description": _longer(earlier.description, later.description),
            "aliases": _aliases(earlier.name, [*earlier.aliases, *later.aliases, later.name]),
            "properties": _properties(earlier.properties, later.properties),
            "confidence": max(earlier.confidence, later.confidence),
            "source_document_ids": _union(earlier.source_document_ids, later.source_document_ids),
        },
        deep=True,
    )


def absorb(survivor: Entity, merged: Entity) -> Entity:
    """The survivor after taking in `merged`; see the module docstring."""
    return survivor.model_copy(
        update={
            "description": survivor.description
            if survivor.description.strip()
            else merged.description,
            "aliases": _aliases(survivor.name, [*survivor.aliases, merged.name, *merged.aliases]),
            "properties": _properties(survivor.properties, merged.properties),
            "confidence": max(survivor.confidence, merged.confidence),
            "source_document_ids": _union(survivor.source_document_ids, merged.source_document_ids),
        },
        deep=True,
    )


def combine_relationships(earlier: Relationship, later: Relationship) -> Relationship:
    """One relationship from two sightings of the same id: longer description, earlier keys win.

    The source documents are the union of both, earlier first.
    """
    return earlier.model_copy(
        update={
            "description": _longer(earlier.description, later.description),
            "properties": _properties(earlier.properties, later.properties),
            "confidence": max(earlier.confidence, later.confidence),
            "source_document_ids": _union(earlier.source_document_ids, later.source_document_ids),
        },
        deep=True,
    )


def _longer(first: str, second: str) -> str:
    return second if len(second.strip()) > len(first.strip()) else first


def _properties(first: dict[str, JsonValue], second: dict[str, JsonValue]) -> dict[str, JsonValue]:
    return {**second, **first}


def _union(first: Iterable[str], second: Iterable[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))


def _aliases(name: str, candidates: Iterable[str]) -> list[str]:
    """Candidates in order, one per normalised form, never the name's own form or a blank."""
    seen = {normalize_name(name)}
    kept: list[str] = []
    for alias in candidates:
        form = normalize_name(alias)
        if form and form not in seen:
            seen.add(form)
            kept.append(alias)
    return kept


def redirected(
    relationship: Relationship, renamed: Mapping[EntityId, EntityId]
) -> Relationship | None:
    """`relationship` with each end in `renamed` moved to its new id (a new derived id).

    `None` when both ends become one entity (a self-loop is dropped).
    """
    source = renamed.get(relationship.source_id, relationship.source_id)
    target = renamed.get(relationship.target_id, relationship.target_id)
    if source == target:
        return None
    return Relationship(
        tenant_id=relationship.tenant_id,
        source_id=source,
        target_id=target,
        relationship_type=relationship.relationship_type,
        description=relationship.description,
        properties=relationship.properties,
        confidence=relationship.confidence,
        source_document_ids=list(relationship.source_document_ids),
    )
