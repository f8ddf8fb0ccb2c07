"""Planning a merge and its undo as events. Pure: reads nothing, writes nothing."""

from __future__ import annotations

from collections.abc import Sequence

from redstring.domain.entity import Entity, Relationship
from redstring.domain.events import EntitiesMerged, MergeUndone
from redstring.domain.ids import RelationshipId
from redstring.domain.merging import absorb, combine_relationships, redirected


def choose_survivor(first: Entity, second: Entity) -> tuple[Entity, Entity]:
    """(survivor, merged): more source documents survives, then the longer name, then the
    lower id string.
    """
    ranked = sorted(
        [first, second],
        key=lambda entity: (-len(entity.source_document_ids), -len(entity.name), str(entity.id)),
    )
    return ranked[0], ranked[1]


def plan_merge(
    survivor: Entity,
    merged: Entity,
    *,
    merged_relationships: Sequence[Relationship],
    survivor_relationships: Sequence[Relationship],
    score: float,
) -> EntitiesMerged:
    """The event folding `merged` into `survivor`.

    Every relationship of `merged` is removed and re-created with the
    survivor at that end; a re-created one that would be a self-loop is
    dropped, and one the survivor already has is not added again (the
    survivor's copy stays). Raises `ValueError` for two tenants or one entity.
    """
    if survivor.tenant_id != merged.tenant_id or survivor.id == merged.id:
        raise ValueError("a merge joins two different entities of one tenant")
    existing = {relationship.id for relationship in survivor_relationships}
    added: dict[RelationshipId, Relationship] = {}
    for relationship in merged_relationships:
        moved = redirected(relationship, {merged.id: survivor.id})
        if moved is None or moved.id in existing:
            continue
        held = added.get(moved.id)
        added[moved.id] = moved if held is None else combine_relationships(held, moved)
    return EntitiesMerged(
        tenant_id=survivor.tenant_id,
        survivor_before=survivor,
        survivor_after=absorb(survivor, merged),
        merged=[merged],
        relationships_removed=sorted(merged_relationships, key=lambda r: str(r.id)),
        relationships_added=sorted(added.values(), key=lambda r: str(r.id)),
        score=score,
    )


def plan_undo(merge: EntitiesMerged) -> MergeUndone:
    """The event reversing `merge`: the survivor as it was, the merged entities and their edges."""
    return MergeUndone(
        tenant_id=merge.tenant_id,
        merge_event_id=merge.event_id,
        survivor_restored=merge.survivor_before,
        restored=merge.merged,
        relationships_restored=merge.relationships_removed,
        relationships_removed=merge.relationships_added,
    )
