"""What one tenant holds, counted: the answer of the stores' summary reads.

Stores compute these with aggregates over their indexes, never by loading
rows, so a summary costs the same whatever the entities' and chunks' sizes.
Keys are ordered (types and source ids ascending) so two stores holding the
same data give equal summaries.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field


class GraphSummary(BaseModel):
    """The entities and relationships of one tenant, counted.

    `entity_types` maps each type, in the normalised form the type filters
    compare (`normalize_name`: casefolded, NFKC, spaces collapsed), to how
    many entities carry it; its values sum to `entities`.
    """

    model_config = ConfigDict(frozen=True)

    entities: int = Field(ge=0)
    relationships: int = Field(ge=0)
    entity_types: dict[str, int] = Field(default_factory=dict)


class ChunkSummary(BaseModel):
    """The chunks of one tenant, counted, and the source documents they come from.

    `sources` maps each source id, exactly as stored, to its chunk count;
    its values sum to `chunks`. `embedded` counts the chunks holding a vector.
    """

    model_config = ConfigDict(frozen=True)

    chunks: int = Field(ge=0)
    sources: dict[str, int] = Field(default_factory=dict)
    embedded: int = Field(default=0, ge=0)


def graph_summary_of(entity_types: Iterable[tuple[str, int]], relationships: int) -> GraphSummary:
    """A `GraphSummary` from (normalised type, count) pairs and a relationship count.

    A type given twice (a store grouping by a finer key) has its counts added.
    """
    counts: dict[str, int] = {}
    for entity_type, count in entity_types:
        counts[entity_type] = counts.get(entity_type, 0) + count
    return GraphSummary(
        entities=sum(counts.values()),
        relationships=relationships,
        entity_types=dict(sorted(counts.items())),
    )


def chunk_summary_of(sources: Iterable[tuple[str, int]], *, embedded: int) -> ChunkSummary:
    """A `ChunkSummary` from (source id, chunk count) pairs, one per source, and the number
    of chunks holding a vector."""
    counts = dict(sources)
    return ChunkSummary(
        chunks=sum(counts.values()), sources=dict(sorted(counts.items())), embedded=embedded
    )
