"""Writing a document that was extracted before: survivors keep its names, dropped entities go.

Two cases a fresh build never meets (ADR 0153):

- A name merged away earlier is extracted again (B31). Its derived id is
  gone from the graph, but the survivor holds the name as an alias and the
  blocking index files aliases, so the extracted entity, its relationships and
  its chunk rows are written as the survivor instead of being written under
  the old id and merged a second time.
- A re-extracted document no longer names an entity it named before (B32).
  What it named before is read from the graph's own record (the entities and
  relationships listing it in `source_document_ids`, read once per build by
  `graph_support`) and from its stored chunk rows, so an `index` or `remove`
  between two builds, which rewrites or deletes those rows, loses nothing
  (ADR 0620); an entity it no longer names loses the document from its
  sources, and one left with no source is retired, with its relationships, by
  an `EntitiesRetired` event. A relationship it no longer states loses it the
  same way (B155, ADR 0154).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from redstring.domain.blocking import name_keys_for
from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Entity, Relationship
from redstring.domain.events import EntitiesRetired
from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.merging import (
    absorb,
    combine_relationships,
    combine_sightings,
    redirected,
)
from redstring.domain.normalization import normalize_name
from redstring.ports.chunk_store import ChunkReader, ChunkWriter
from redstring.ports.graph_store import BlockingIndex, GraphReader


@dataclass(frozen=True)
class Resolved:
    """One document's extraction with merged-away names written as their survivors."""

    entities: list[Entity]
    relationships: list[Relationship]
    chunks: list[StoredChunk]


async def resolve_survivors(
    graph: GraphReader,
    entities: list[Entity],
    relationships: list[Relationship],
    chunks: list[StoredChunk],
    tenant_id: TenantId,
) -> Resolved:
    """Entities whose id the graph lacks but a same-type survivor names as an alias, rewritten."""
    unchanged = Resolved(entities, relationships, chunks)
    if not entities or not isinstance(graph, BlockingIndex):
        return unchanged
    held = {entity.id for entity in await graph.get_entities([e.id for e in entities], tenant_id)}
    survivors: dict[EntityId, Entity] = {}
    for entity in entities:
        if entity.id not in held:
            survivor = await _survivor_of(graph, entity, tenant_id)
            if survivor is not None:
                survivors[entity.id] = survivor
    if not survivors:
        return unchanged
    renamed = {old: survivor.id for old, survivor in survivors.items()}
    written: dict[EntityId, Entity] = {}
    for extracted in entities:
        survivor = survivors.get(extracted.id)
        entity = absorb(survivor, extracted) if survivor is not None else extracted
        earlier = written.get(entity.id)
        written[entity.id] = entity if earlier is None else combine_sightings(earlier, entity)
    links: dict[RelationshipId, Relationship] = {}
    for relationship in relationships:
        moved = redirected(relationship, renamed)
        if moved is None:
            continue
        known = links.get(moved.id)
        links[moved.id] = moved if known is None else combine_relationships(known, moved)
    rows = [
        chunk.model_copy(
            update={"entity_ids": sorted({renamed.get(i, i) for i in chunk.entity_ids}, key=str)}
        )
        for chunk in chunks
    ]
    return Resolved(
        sorted(written.values(), key=lambda e: str(e.id)),
        sorted(links.values(), key=lambda r: str(r.id)),
        rows,
    )


async def _survivor_of(graph: BlockingIndex, entity: Entity, tenant_id: TenantId) -> Entity | None:
    form = normalize_name(entity.name)
    blocks = await graph.find_by_blocking_keys(name_keys_for(entity.name), tenant_id)
    candidates = {candidate.id: candidate for block in blocks.values() for candidate in block}
    for candidate in sorted(candidates.values(), key=lambda c: str(c.id)):
        same_type = candidate.entity_type == entity.entity_type
        if same_type and form in {normalize_name(alias) for alias in candidate.aliases}:
            return candidate
    return None


async def graph_support(
    graph: GraphReader,
    chunks: ChunkWriter | None,
    document_ids: Collection[str],
    tenant_id: TenantId,
) -> dict[str, set[EntityId]]:
    """For each of `document_ids`, the entities of `tenant_id` the graph records it supports.

    Those listing it in `source_document_ids`, and both ends of each
    relationship listing it: what the document named when it was last built,
    whatever `index` or `remove` did to its passages since (ADR 0620). Read
    once per build, before its first document is written: only a document's
    own events add it as a source, so the ids stay a superset of what it
    supports until it is written, and `retirement` reads their current state.
    A document the graph records nothing of is left out, and everything
    without a chunk store that reads (`retirement` needs one).
    """
    wanted = set(document_ids)
    named: dict[str, set[EntityId]] = {}
    if not wanted or not isinstance(chunks, ChunkReader):
        return named
    for entity in await graph.list_entities(tenant_id):
        for document_id in wanted.intersection(entity.source_document_ids):
            named.setdefault(document_id, set()).add(entity.id)
    for relationship in await graph.list_relationships(tenant_id):
        for document_id in wanted.intersection(relationship.source_document_ids):
            named.setdefault(document_id, set()).update(
                (relationship.source_id, relationship.target_id)
            )
    return named


async def retirement(
    graph: GraphReader,
    chunks: ChunkWriter | None,
    *,
    document_id: str,
    still_named: set[EntityId],
    still_stated: set[RelationshipId],
    tenant_id: TenantId,
    supported: Mapping[str, set[EntityId]] | None = None,
) -> EntitiesRetired | None:
    """The `EntitiesRetired` for what `document_id` named or stated before and no longer does.

    What it named before is what `supported` (`graph_support`'s answer)
    records of it, with what its stored chunk rows name. This needs a chunk
    store that reads (`None` otherwise, or when nothing changed). What it
    stated before is every relationship of those entities listing it as a
    source (B155); a relationship listing no source is never retired.
    """
    if not isinstance(chunks, ChunkReader):
        return None
    before: set[EntityId] = set(() if supported is None else supported.get(document_id, ()))
    for row in await chunks.chunks_of_source(document_id, tenant_id):
        before.update(row.entity_ids)
    retired: list[Entity] = []
    updated: list[Entity] = []
    for entity in await graph.get_entities(sorted(before - still_named, key=str), tenant_id):
        if document_id in entity.source_document_ids:
            sources = _without(entity.source_document_ids, document_id)
            if sources:
                updated.append(entity.model_copy(update={"source_document_ids": sources}))
            else:
                retired.append(entity)
    gone = {entity.id for entity in retired}
    removed: dict[RelationshipId, Relationship] = {}
    changed: dict[RelationshipId, Relationship] = {}
    for entity_id in sorted(before, key=str):
        for relationship in await graph.relationships_of(entity_id, tenant_id):
            if {relationship.source_id, relationship.target_id} & gone:
                removed[relationship.id] = relationship
            elif (
                document_id in relationship.source_document_ids
                and relationship.id not in still_stated
            ):
                sources = _without(relationship.source_document_ids, document_id)
                if sources:
                    changed[relationship.id] = relationship.model_copy(
                        update={"source_document_ids": sources}
                    )
                else:
                    removed[relationship.id] = relationship
    if not (retired or updated or removed or changed):
        return None
    return EntitiesRetired(
        tenant_id=tenant_id,
        document_id=document_id,
        retired=retired,
        relationships_removed=sorted(removed.values(), key=lambda r: str(r.id)),
        updated=updated,
        relationships_updated=sorted(changed.values(), key=lambda r: str(r.id)),
    )


def _without(sources: list[str], document_id: str) -> list[str]:
    return [source for source in sources if source != document_id]
