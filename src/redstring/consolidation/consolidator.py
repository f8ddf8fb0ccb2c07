"""Finding merge candidates by blocking key and merging the best one above a threshold."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from redstring.consolidation.merge import choose_survivor, plan_merge
from redstring.consolidation.scoring import entity_similarity
from redstring.domain.blocking import name_keys_for
from redstring.domain.entity import Entity
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.events import EntitiesMerged
from redstring.domain.ids import EntityId, TenantId
from redstring.ports.graph_store import BlockingIndex, GraphReader

#: The threshold `build_graph` merges at unless told otherwise (score scale 0..1).
DEFAULT_MERGE_THRESHOLD = 0.95

Emit = Callable[[EntitiesMerged], Awaitable[None]]


class ConsolidationGraph(GraphReader, BlockingIndex, Protocol):
    """The graph capabilities consolidation reads: entities, edges and the blocking index."""


async def candidates_for(entity: Entity, graph: BlockingIndex, tenant_id: TenantId) -> list[Entity]:
    """Entities filed under a name key of `entity`'s name or aliases, itself excluded, by id.

    Type keys are not looked up: a type key's block is every entity of the
    type, which would make candidate generation a scan.
    """
    keys: list[str] = []
    for name in [entity.name, *entity.aliases]:
        keys.extend(name_keys_for(name))
    blocks = await graph.find_by_blocking_keys(list(dict.fromkeys(keys)), tenant_id)
    found = {other.id: other for block in blocks.values() for other in block}
    found.pop(entity.id, None)
    return sorted(found.values(), key=lambda other: str(other.id))


def best_match(
    entity: Entity, candidates: Iterable[Entity], threshold: float
) -> tuple[Entity, float] | None:
    """The candidate scoring highest at or above `threshold`; ties go to the lower id string."""
    best: tuple[Entity, float] | None = None
    for candidate in candidates:
        score = entity_similarity(entity, candidate)
        if score is None or score < threshold:
            continue
        if best is None or score > best[1]:
            best = (candidate, score)
    return best


async def consolidate(
    entity_ids: Iterable[EntityId],
    tenant_id: TenantId,
    *,
    graph: ConsolidationGraph,
    threshold: float,
    emit: Emit,
) -> list[EntitiesMerged]:
    """Merge each of `entity_ids` with its best candidate at or above `threshold` (0..1).

    Entities are visited in id-string order. Each merge is handed to `emit`,
    which must make it visible in `graph` (append it to the log and fold it)
    before the next is planned. An id no longer in the graph is skipped.
    Raises `InvalidArgumentError` for a threshold outside 0..1.
    """
    if not 0.0 <= threshold <= 1.0:
        raise InvalidArgumentError(
            name="threshold",
            value=threshold,
            requirement="on 0..1",
            message=f"merge threshold must be on 0..1, got {threshold}",
        )
    merges: list[EntitiesMerged] = []
    for entity_id in sorted(set(entity_ids), key=str):
        [*found] = await graph.get_entities([entity_id], tenant_id)
        if not found:
            continue
        entity = found[0]
        match = best_match(entity, await candidates_for(entity, graph, tenant_id), threshold)
        if match is None:
            continue
        survivor, merged = choose_survivor(entity, match[0])
        event = plan_merge(
            survivor,
            merged,
            merged_relationships=await graph.relationships_of(merged.id, tenant_id),
            survivor_relationships=await graph.relationships_of(survivor.id, tenant_id),
            score=match[1],
        )
        await emit(event)
        merges.append(event)
    return merges
