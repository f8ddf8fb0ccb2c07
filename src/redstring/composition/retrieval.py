"""Entity retrieval: a query string in, the entities of one tenant it means out.

Composes `EmbeddingProvider` + `VectorStore` + `GraphStore`. The provider
embeds the query, the vector store ranks entity ids by cosine, and the graph
store supplies lexical candidates by blocking key and turns ids back into
entities. `vector` and `graph` may not import each other and neither may
import `llm`, so only this layer can hold all three.

Two channels, fused by a `FusionStrategy` (`domain/fusion.py`; by default
`PooledEvidenceFusion`, ADR 0365: rank fusion picks the candidates, their
evidence orders them, and an entity holding every query word comes first;
`ReciprocalRankFusion` and `EvidenceFusion` are one argument away):

- semantic: `embed_query` of the query, then `VectorSearcher.search`;
- lexical: `rank_lexically` (`composition/lexical_channel.py`): the entities
  filed under the query's exact-name, name and trigram keys, each scored by
  `lexical_score`. The query is normalised once (`NormalizedQuery`) and that
  value carried through key generation and scoring.

**The lexical channel only sees what its keys hand it.** Its candidates are
the entities filed under the query's exact-name, whole-name, per-token,
initials (ADR 0070) and character trigram keys (ADR 0115), each block capped
by the store. A name sharing a few rare trigrams with the query is found
(a transliteration, a compound spelling); one sharing no character run with
it is not, and only the semantic channel can find it. That is the price of a
lookup instead of a scan.

**A vector match the graph store lacks is dropped, and nothing replaces it.**
The two stores are fed independently and can lag each other, so a vector
without its entity is an ordinary state, not a fault: raising would break
retrieval during a replay. Filling the gap from further down the ranking
would make a projection that has fallen far behind look healthy, so the
result is simply shorter than `k`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Self

from redstring.composition.lexical_channel import answer_lexically
from redstring.domain.confidence import (
    DEFAULT_MIN_CONFIDENCE,
    ENTITY_CONFIDENCE,
    ConfidenceCalibration,
    nothing_matches,
    require_calibration,
)
from redstring.domain.entity import Entity
from redstring.domain.errors import DimensionMismatchError, MissingCapabilityError
from redstring.domain.fusion import DEFAULT_FUSION, FusionStrategy
from redstring.domain.fusion_dispatch import channel_depths, fuse_entities, fusion_label
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.lexical import WordCover
from redstring.domain.query import NormalizedQuery
from redstring.domain.retrieval import (
    RetrievalMode,
    RetrievalResult,
    ScoredEntity,
    require_served,
    resolve_mode,
)
from redstring.domain.search_request import SearchRequest
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore

#: How an error names the constructor that serves SEMANTIC and HYBRID.
PRIMARY_CONSTRUCTOR = "Retriever(embeddings=..., vectors=..., graph=...)"

_GRAPH_METHODS = ("get_entities", "find_ids_by_blocking_keys", "count_blocking_keys")


@dataclass(frozen=True)
class _SemanticSide:
    embeddings: EmbeddingProvider
    vectors: VectorStore


@dataclass
class _Ranking:
    """One channel's answer: ids best first, their scores, and any entities it holds."""

    ids: list[EntityId] = field(default_factory=list)
    scores: dict[EntityId, float] = field(default_factory=dict)
    entities: dict[EntityId, Entity] = field(default_factory=dict)
    #: The lexical first's `WordCover` (ADR 0540); `None` for the semantic channel.
    cover: WordCover | None = None


class Retriever:
    """Ranks the entities of one tenant against a free-text query.

    Built with `Retriever(embeddings=..., vectors=..., graph=...)` it runs any
    mode and defaults to HYBRID; built with `Retriever.lexical_only(graph=...)`
    it needs no embedding provider, defaults to LEXICAL and refuses the modes
    that need one. Lexical recall is bounded by blocking: see the module
    docstring.
    """

    _graph: GraphStore
    _semantic: _SemanticSide | None
    _default_mode: RetrievalMode
    _fusion: FusionStrategy
    _confidence: ConfidenceCalibration

    def __init__(
        self,
        *,
        embeddings: EmbeddingProvider,
        vectors: VectorStore,
        graph: GraphStore,
        fusion: FusionStrategy = DEFAULT_FUSION,
        confidence: ConfidenceCalibration = ENTITY_CONFIDENCE,
    ) -> None:
        """Wire every channel; `fusion` merges them (default `PooledEvidenceFusion()`;
        pass `ReciprocalRankFusion()` or `EvidenceFusion()` for the older ones).
        `confidence` maps the channel scores to each result's confidence
        (default `ENTITY_CONFIDENCE`, fitted for the local MiniLM model; refit
        for another with `scripts/fit_confidence.py`).

        Raises `DimensionMismatchError` when `embeddings.dimension` differs
        from `vectors.dimension`, before any text is embedded, and
        `MissingCapabilityError` when `graph` is not a graph store.
        """
        if embeddings.dimension != vectors.dimension:
            raise DimensionMismatchError(
                expected=vectors.dimension,
                actual=embeddings.dimension,
                context="Retriever: the embedding provider against the vector store",
            )
        self._wire(
            graph=graph,
            semantic=_SemanticSide(embeddings=embeddings, vectors=vectors),
            default_mode=RetrievalMode.HYBRID,
            fusion=fusion,
            confidence=confidence,
        )

    @classmethod
    def lexical_only(
        cls, *, graph: GraphStore, confidence: ConfidenceCalibration = ENTITY_CONFIDENCE
    ) -> Self:
        """A retriever with the lexical channel alone: no provider, no vector store.

        Its default mode is LEXICAL; asking it for SEMANTIC or HYBRID raises
        `ValueError` naming the primary constructor. Raises
        `MissingCapabilityError` when `graph` is not a graph store.
        """
        retriever = cls.__new__(cls)
        retriever._wire(
            graph=graph,
            semantic=None,
            default_mode=RetrievalMode.LEXICAL,
            fusion=DEFAULT_FUSION,
            confidence=confidence,
        )
        return retriever

    def _wire(
        self,
        *,
        graph: GraphStore,
        semantic: _SemanticSide | None,
        default_mode: RetrievalMode,
        fusion: FusionStrategy,
        confidence: ConfidenceCalibration,
    ) -> None:
        # Both construction paths come through here, so a guard here holds for both.
        missing = [name for name in _GRAPH_METHODS if not callable(getattr(graph, name, None))]
        if missing:
            raise MissingCapabilityError(
                role="graph", given=graph, missing=missing, needed="a GraphStore"
            )
        self._graph = graph
        self._semantic = semantic
        self._default_mode = default_mode
        self._fusion = fusion
        self._confidence = require_calibration(confidence, default="ENTITY_CONFIDENCE")

    async def retrieve(
        self,
        query: str,
        tenant_id: TenantId,
        *,
        k: int = 10,
        entity_types: Sequence[str] | None = None,
        mode: RetrievalMode | None = None,
        min_confidence: float | None = DEFAULT_MIN_CONFIDENCE,
    ) -> RetrievalResult:
        """The at most `k` entities of `tenant_id` best matching `query`, best first.

        `mode=None` means this retriever's default. `entity_types=None` means
        no filter and `[]` matches nothing; the filter applies to both channels
        before `k`. `k == 0` returns no matches. Each match carries the fused
        score (ordinal, comparable only within this result) and each channel's
        own score on 0..1, or `None` when that channel did not rank it, and
        its `confidence` (0..1, comparable across queries).
        `min_confidence` (`None`: no threshold, the default) empties the answer
        when no candidate of either channel reaches it (`nothing_matches`,
        read before `k`); otherwise the first `k` come back as without it.

        Raises `InvalidArgumentError` (a `ValueError`) naming the argument for
        a query that is not non-blank encodable text, a `k` that is not an int
        of zero or more, a tenant id that is not a UUID, `entity_types` that
        is not a list of str holding no NUL, a `min_confidence` that is not `None` or a
        number from 0 to 1, or a mode this retriever was not built for.
        """
        resolved = resolve_mode(
            mode,
            default=self._default_mode,
            semantic_available=self._semantic is not None,
            primary_constructor=PRIMARY_CONSTRUCTOR,
        )
        return await self.search(
            SearchRequest.of(
                query,
                tenant_id,
                k=k,
                mode=resolved,
                only=entity_types,
                min_confidence=min_confidence,
            )
        )

    async def search(self, request: SearchRequest) -> RetrievalResult:
        """`retrieve` for a request checked once already (`SearchRequest.of`), mode resolved.

        Raises `ModeNeedsEmbeddingsError` for a semantic or hybrid request to a
        lexical-only retriever; nothing else is checked again.
        """
        require_served(
            request.mode,
            semantic_available=self._semantic is not None,
            primary_constructor=PRIMARY_CONSTRUCTOR,
        )
        query, tenant_id, k = request.text, request.tenant_id, request.k
        entity_types, threshold = request.filter_list(), request.min_confidence
        if k == 0:
            return RetrievalResult(query=query)
        semantic_side = self._semantic if request.mode is not RetrievalMode.LEXICAL else None
        normalized = request.query
        hybrid = request.mode is RetrievalMode.HYBRID
        depth, handed = channel_depths(self._fusion, k) if hybrid else (k, k)
        semantic, lexical = await asyncio.gather(
            self._rank_semantically(semantic_side, query, tenant_id, depth, entity_types),
            self._rank_lexically(
                request.mode is not RetrievalMode.SEMANTIC, normalized, tenant_id, entity_types
            ),
        )
        confidence = {
            entity_id: self._confidence.confidence(
                semantic=semantic.scores.get(entity_id), lexical=lexical.scores.get(entity_id)
            )
            for entity_id in (*semantic.ids, *lexical.ids)
        }
        channels = (
            [(i, semantic.scores[i]) for i in semantic.ids],
            [(i, lexical.scores[i]) for i in lexical.ids[:handed]],
        )
        cover = lexical.cover
        fused = fuse_entities(self._fusion, *channels, query=normalized, cover=cover)[:k]
        label = (
            fusion_label(self._fusion, *channels, query=normalized, cover=cover) if hybrid else None
        )
        if nothing_matches(confidence.values(), threshold):
            fused = []
        entities = await self._resolve([entity_id for entity_id, _ in fused], lexical, tenant_id)
        return RetrievalResult(
            query=query,
            fusion=label,
            matches=[
                ScoredEntity(
                    entity=entities[entity_id],
                    score=score,
                    semantic=semantic.scores.get(entity_id),
                    lexical=lexical.scores.get(entity_id),
                    confidence=confidence[entity_id],
                )
                for entity_id, score in fused
                if entity_id in entities
            ],
        )

    @staticmethod
    async def _rank_semantically(
        side: _SemanticSide | None,
        query: str,
        tenant_id: TenantId,
        k: int,
        entity_types: Sequence[str] | None,
    ) -> _Ranking:
        if side is None:
            return _Ranking()
        [vector] = await side.embeddings.embed_query([query])
        matches = await side.vectors.search(vector, tenant_id, k=k, entity_types=entity_types)
        return _Ranking(
            ids=[match.entity_id for match in matches],
            scores={match.entity_id: match.score for match in matches},
        )

    async def _rank_lexically(
        self,
        run: bool,
        query: NormalizedQuery,
        tenant_id: TenantId,
        entity_types: Sequence[str] | None,
    ) -> _Ranking:
        if not run:
            return _Ranking()
        answer = await answer_lexically(self._graph, query, tenant_id, entity_types)
        kept = answer.scored
        return _Ranking(
            ids=[entity.id for entity, _ in kept],
            scores={entity.id: score for entity, score in kept},
            entities={entity.id: entity for entity, _ in kept},
            cover=answer.cover,
        )

    async def _resolve(
        self, entity_ids: list[EntityId], lexical: _Ranking, tenant_id: TenantId
    ) -> dict[EntityId, Entity]:
        """The entities of `entity_ids` the stores hold; an id neither has is absent."""
        found = {
            entity_id: lexical.entities[entity_id]
            for entity_id in entity_ids
            if entity_id in lexical.entities
        }
        wanted = [entity_id for entity_id in entity_ids if entity_id not in found]
        if wanted:
            for entity in await self._graph.get_entities(wanted, tenant_id):
                found[entity.id] = entity
        return found
