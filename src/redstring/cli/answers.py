"""What the commands and the MCP tools answer with: plain, JSON-ready models.

Scores keep the library's scales: `score` is the fused rank score (ordinal,
comparable only within one answer); `semantic` and `lexical` are each
channel's own score on 0..1, `None` when that channel did not rank the item;
`bm25` is the raw BM25 score (>= 0, unbounded) a passage's `lexical` maps.
"""

from __future__ import annotations

from pydantic import BaseModel, JsonValue

from redstring.domain.retrieval import RetrievalMode


class EntityHit(BaseModel):
    """One ranked entity."""

    rank: int
    id: str
    name: str
    type: str
    description: str
    aliases: list[str]
    score: float
    semantic: float | None
    lexical: float | None


class EntitySearchAnswer(BaseModel):
    """The entities of one tenant best matching a query, best first."""

    tenant_id: str
    query: str
    mode: RetrievalMode
    matches: list[EntityHit]


class PassageHit(BaseModel):
    """One ranked passage (chunk) and where it comes from."""

    rank: int
    chunk_id: str
    source_id: str
    index: int
    start: int
    end: int
    text: str
    score: float
    semantic: float | None
    lexical: float | None
    bm25: float | None


class PassageSearchAnswer(BaseModel):
    """The passages of one tenant best matching a query, best first."""

    tenant_id: str
    query: str
    mode: RetrievalMode
    matches: list[PassageHit]


class EntityDetail(BaseModel):
    """Everything the graph holds about one entity."""

    id: str
    name: str
    type: str
    description: str
    aliases: list[str]
    properties: dict[str, JsonValue]
    confidence: float
    source_document_ids: list[str]


class Neighbour(BaseModel):
    """A relationship touching the entity, and the entity at its other end.

    `direction` is `outgoing` when the entity is the relationship's source.
    """

    relationship_id: str
    relationship_type: str
    direction: str
    description: str
    confidence: float
    entity_id: str
    name: str
    type: str


class EntityAnswer(BaseModel):
    """One entity with its neighbours, ordered by relationship id."""

    tenant_id: str
    entity: EntityDetail
    neighbours: list[Neighbour]


class TenantStats(BaseModel):
    """The size of one tenant. `chunks` is `None` where the backend keeps no chunks."""

    tenant_id: str
    entities: int
    entities_by_type: dict[str, int]
    relationships: int
    vectors: int
    chunks: int | None


class StatsAnswer(BaseModel):
    """Every tenant holding entities (and the tenant asked about), by tenant id."""

    backend: str
    tenants: list[TenantStats]
