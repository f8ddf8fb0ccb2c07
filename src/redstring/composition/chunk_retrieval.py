"""Retrieving passages: an embedding provider and a chunk store, their channels fused.

Composes an `EmbeddingProvider` (queries embedded with `embed_query`) with a
chunk store's semantic and lexical capabilities. The semantic channel is exact
cosine over the chunks that carry an embedding; the lexical channel is BM25
(`redstring.domain.bm25`) over the store's inverted index. HYBRID runs both
concurrently and fuses them with a `FusionStrategy` (`domain/fusion.py`). The
default, `ConvexFusion`, is the first `k` of its order over every chunk: the
semantic channel read to its depth, the lexical one to `k`, each BM25 score
handed over as its share of the query's ceiling (`bm25_coverage`;
`domain/convex_fusion.py`). `ReciprocalRankFusion` is computed exactly over
both full rankings: each is read to `k`, the lexical one on as deep as a
candidate could still reach the answer, and the store ranks each such
candidate beyond the semantic `k` (`domain/exact_rrf.py`). Another strategy sees each
chunk's semantic score on the 0..1 match scale and its BM25 score divided by
the query's best BM25 score (`bm25_relative`). A chunk with no embedding is
simply not a semantic candidate, so HYBRID over a partly embedded corpus still
answers those chunks lexically. Only the fused `k` best are fetched, and one
deleted in between is skipped without backfilling (fewer than `k` is already
a legal answer).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence

import numpy as np

from redstring.domain.bm25 import LexicalCandidates, LexicalRanking, rank_chunks
from redstring.domain.chunk import ChunkId
from redstring.domain.chunk_retrieval import (
    ChunkRetrievalResult,
    ScoredChunk,
    bm25_relative,
)
from redstring.domain.confidence import (
    DEFAULT_MIN_CONFIDENCE,
    PASSAGE_CONFIDENCE,
    ConfidenceCalibration,
    bm25_ceiling,
    bm25_coverage,
    nothing_matches,
    require_calibration,
)
from redstring.domain.convex_fusion import ConvexFusion
from redstring.domain.errors import DimensionMismatchError
from redstring.domain.exact_rrf import rrf_of_ranks
from redstring.domain.fusion import (
    DEFAULT_PASSAGE_FUSION,
    RRF_K,
    FusionStrategy,
    ReciprocalRankFusion,
)
from redstring.domain.fusion_dispatch import fusion_label
from redstring.domain.ids import TenantId
from redstring.domain.retrieval import RetrievalMode, require_served, resolve_mode
from redstring.domain.search_request import SearchRequest
from redstring.ports.chunk_store import (
    ChunkReader,
    ChunkStore,
    LexicalChunkSource,
    SemanticChunkSource,
)
from redstring.ports.embedding_provider import EmbeddingProvider

_PRIMARY = "ChunkRetriever(embeddings=..., chunks=...)"


class ChunkRetriever:
    """Answers "which passages are about this?" for one tenant at a time.

    `ChunkRetriever(embeddings=..., chunks=...)` serves every mode and
    defaults to HYBRID; it refuses a provider and store of different
    dimensions with `DimensionMismatchError`, before anything is embedded.
    `ChunkRetriever.lexical_only(chunks=...)` needs no provider, defaults to
    LEXICAL and refuses SEMANTIC and HYBRID with `ValueError`. `fusion`
    merges the channels in HYBRID (default `ConvexFusion()`, computed over
    every chunk; `ReciprocalRankFusion()`, computed exactly over the channels'
    full rankings, or another `FusionStrategy` is one argument away). `ScoredChunk.confidence` reads
    the channel scores through `confidence` (default `PASSAGE_CONFIDENCE`,
    fitted for the local MiniLM model).
    """

    _semantic: tuple[EmbeddingProvider, SemanticChunkSource] | None
    _lexical: ChunkStore
    _default: RetrievalMode
    _fusion: FusionStrategy
    _confidence: ConfidenceCalibration

    def __init__(
        self,
        *,
        embeddings: EmbeddingProvider,
        chunks: ChunkStore,
        fusion: FusionStrategy = DEFAULT_PASSAGE_FUSION,
        confidence: ConfidenceCalibration = PASSAGE_CONFIDENCE,
    ) -> None:
        if embeddings.dimension != chunks.dimension:
            raise DimensionMismatchError(
                expected=chunks.dimension,
                actual=embeddings.dimension,
                context="ChunkRetriever: the chunk store's dimension against the embedding "
                "provider's",
            )
        self._wire(
            semantic=(embeddings, chunks),
            lexical=chunks,
            default=RetrievalMode.HYBRID,
            fusion=fusion,
            confidence=confidence,
        )

    @classmethod
    def lexical_only(
        cls, *, chunks: ChunkStore, confidence: ConfidenceCalibration = PASSAGE_CONFIDENCE
    ) -> ChunkRetriever:
        """A retriever running BM25 only: no embedding provider, LEXICAL by default."""
        retriever = cls.__new__(cls)
        retriever._wire(
            semantic=None,
            lexical=chunks,
            default=RetrievalMode.LEXICAL,
            fusion=DEFAULT_PASSAGE_FUSION,
            confidence=confidence,
        )
        return retriever

    def _wire(
        self,
        *,
        semantic: tuple[EmbeddingProvider, SemanticChunkSource] | None,
        lexical: ChunkStore,
        default: RetrievalMode,
        fusion: FusionStrategy,
        confidence: ConfidenceCalibration,
    ) -> None:
        self._semantic = semantic
        self._lexical = lexical
        self._default = default
        self._fusion = fusion
        self._confidence = require_calibration(confidence, default="PASSAGE_CONFIDENCE")

    @property
    def default_mode(self) -> RetrievalMode:
        """The mode `retrieve_chunks` runs when `mode` is None."""
        return self._default

    async def retrieve_chunks(
        self,
        query: str,
        tenant_id: TenantId,
        *,
        k: int = 10,
        mode: RetrievalMode | None = None,
        source_ids: Sequence[str] | None = None,
        min_confidence: float | None = DEFAULT_MIN_CONFIDENCE,
    ) -> ChunkRetrievalResult:
        """The `k` chunks of `tenant_id` best matching `query`, best first.

        `source_ids` keeps only chunks of those sources (`None`: all; `[]`:
        none), applied before `k` in every channel. Each channel ranks its own
        best and the rankings are fused; ties break by chunk id string.
        A query whose terms are all stopwords ranks nothing lexically.
        Each match carries its `confidence` (0..1, comparable across
        queries); `min_confidence` (`None`: no threshold, the default) empties
        the answer when no candidate of either channel reaches it
        (`nothing_matches`, read before `k`); otherwise it changes nothing.

        With the default fusion (`ConvexFusion`) HYBRID is the first `k` of its
        order over every chunk, and a one-word query's lone holder (an
        identifier one chunk alone holds) comes first; with
        `ReciprocalRankFusion` it is the RRF of both channels' full rankings
        (`rrf_of_ranks`). Either way the first `n` results, their scores and
        fields, are the same for every `k >= n`. Another fusion sees each channel's
        `max(k, CHANNEL_DEPTH)` best, so only a `k` up to `CHANNEL_DEPTH`
        returns the first `k` of the same fused order.
        Raises `InvalidArgumentError` (a `ValueError`) naming the argument for
        a query that is not non-blank encodable text, a `k` that is not an int
        of zero or more, a tenant id that is not a UUID, a `source_ids` that is
        not a list of str holding no NUL (one string refused), a `min_confidence` that is not
        `None` or a number from 0 to 1, or a mode this retriever was not built for
        (naming the constructor that serves it). `k == 0` returns no matches.
        """
        resolved = resolve_mode(
            mode,
            default=self._default,
            semantic_available=self._semantic is not None,
            primary_constructor=_PRIMARY,
        )
        return await self.search(
            SearchRequest.of(
                query,
                tenant_id,
                k=k,
                mode=resolved,
                only=source_ids,
                only_name="source_ids",
                min_confidence=min_confidence,
            )
        )

    async def search(self, request: SearchRequest) -> ChunkRetrievalResult:
        """`retrieve_chunks` for a request checked once already (`SearchRequest.of`).

        `request.only` lists the source ids kept. Raises `ModeNeedsEmbeddingsError`
        for a semantic or hybrid request to a lexical-only retriever; nothing
        else is checked again.
        """
        require_served(
            request.mode,
            semantic_available=self._semantic is not None,
            primary_constructor=_PRIMARY,
        )
        query, tenant_id, k, resolved = request.text, request.tenant_id, request.k, request.mode
        source_ids, threshold = request.filter_list(), request.min_confidence
        if k == 0:
            return ChunkRetrievalResult(query=query, mode=resolved, matches=[])
        pair = self._semantic if resolved is not RetrievalMode.LEXICAL else None
        lexical_source = self._lexical if resolved is not RetrievalMode.SEMANTIC else None
        convex = self._fusion if isinstance(self._fusion, ConvexFusion) else None
        exact = isinstance(self._fusion, ReciprocalRankFusion)
        depth = k if exact else max(k, CHANNEL_DEPTH if convex is None else convex.depth)
        (vector, semantic), (found, ceiling) = await asyncio.gather(
            _semantic_channel(pair, query, tenant_id, depth, source_ids),
            _lexical_candidates(lexical_source, query, tenant_id, source_ids),
        )
        label: str | None = None
        if convex is not None:
            label = fusion_label(convex, semantic, [], query=request.query)
            lone = await _lone_holder(self._lexical, found, request)
            lexical, fused = _convex(convex, semantic, found, ceiling, request=request, lone=lone)
            await _score_semantically(pair, vector, semantic, fused, request)
        elif exact:
            label = f"rrf k={RRF_K}"
            lexical, fused = await self._exact_rrf(
                pair=pair,
                vector=vector,
                semantic=semantic,
                found=found,
                request=request,
            )
        else:
            lexical = [] if found is None else rank_chunks(found, k=depth)
            channels = (
                semantic,
                [(chunk_id, bm25_relative(score, lexical[0][1])) for chunk_id, score in lexical],
            )
            fused = self._fusion.fuse(*channels, query=request.query)[:k]
            label = fusion_label(self._fusion, *channels, query=request.query)
        cosine = dict(semantic)
        bm25 = dict(lexical)
        coverage = {chunk_id: bm25_coverage(score, ceiling) for chunk_id, score in lexical}
        # Confidence rises with each channel's score, so each channel's best
        # holds the highest confidence of every candidate (read before k).
        best = [semantic[0][0]] if semantic else []
        best += [lexical[0][0]] if lexical else []
        confidence = {
            chunk_id: self._confidence.confidence(
                semantic=cosine.get(chunk_id), lexical=coverage.get(chunk_id)
            )
            for chunk_id in (*best, *(chunk_id for chunk_id, _ in fused))
        }
        if nothing_matches(confidence.values(), threshold):
            fused = []
        # Only the answer's chunks are read; the channels ranked ids.
        wanted = [chunk_id for chunk_id, _ in fused]
        known = (
            {c.id: c for c in await self._lexical.get_chunks(wanted, tenant_id)} if wanted else {}
        )
        matches = [
            ScoredChunk(
                chunk=known[chunk_id],
                score=score,
                semantic=cosine.get(chunk_id),
                bm25=bm25.get(chunk_id),
                bm25_coverage=coverage.get(chunk_id),
                confidence=confidence[chunk_id],
            )
            for chunk_id, score in fused
            if chunk_id in known  # deleted since it was ranked: skipped, no backfill
        ]
        return ChunkRetrievalResult(
            query=query,
            mode=resolved,
            matches=matches,
            fusion=label if resolved is RetrievalMode.HYBRID else None,
        )

    async def _exact_rrf(
        self,
        *,
        pair: tuple[EmbeddingProvider, SemanticChunkSource] | None,
        vector: Sequence[float] | None,
        semantic: list[tuple[ChunkId, float]],
        found: LexicalCandidates | None,
        request: SearchRequest,
    ) -> tuple[list[tuple[ChunkId, float]], list[tuple[ChunkId, float]]]:
        """The lexical ranking's part read and the first `k` of the RRF of both
        channels' full rankings (`rrf_of_ranks`); `semantic` (its first `k`)
        gains the rank and score of every lexical candidate beyond them that
        could still reach the answer.

        The lexical ranking is read to `k`, plus the place of each of the
        semantic `k` it holds, plus as deep as a candidate could still reach
        the answer: any deeper candidate ranks below the `k` best both ways.
        """
        k, tenant_id, source_ids = request.k, request.tenant_id, request.filter_list()
        ranking = None if found is None else LexicalRanking(found)
        lexical = [] if ranking is None else ranking.first(k)
        semantic_rank = {chunk_id: rank for rank, (chunk_id, _) in enumerate(semantic, start=1)}
        lexical_rank = {chunk_id: rank for rank, (chunk_id, _) in enumerate(lexical, start=1)}
        placed = {} if ranking is None else ranking.places(set(semantic_rank) - set(lexical_rank))
        lexical_rank.update((chunk_id, rank) for chunk_id, (rank, _) in placed.items())
        # What every candidate is sure of (the first k semantic ids their exact
        # score, a lexical candidate beyond them its lexical part) puts the
        # answer's last at or above the k-th best of it. A candidate beyond the
        # first k ranks below k semantically, so one that cannot reach that even
        # then is never in the answer, and its semantic rank is not asked. The
        # k-th best needs only the lexical first k: every deeper candidate
        # scores below each of them.
        floor = rrf_of_ranks([semantic_rank, lexical_rank], k=k)[-1][1] if lexical else 0.0
        reach = 1.0 / (RRF_K + k + 1)
        if pair is not None and vector is not None and ranking is not None and len(semantic) == k:
            lexical = _reaching(ranking, floor=floor, reach=reach, at_least=k)
            lexical_rank.update(
                (chunk_id, rank) for rank, (chunk_id, _) in enumerate(lexical, start=1)
            )
            beyond = [
                chunk_id
                for rank, (chunk_id, _) in enumerate(lexical, start=1)
                if chunk_id not in semantic_rank and 1.0 / (RRF_K + rank) + reach >= floor
            ]
            deeper = (
                await pair[1].semantic_ranks(vector, tenant_id, beyond, source_ids=source_ids)
                if beyond
                else {}
            )
            for chunk_id, (rank, score) in deeper.items():
                semantic_rank[chunk_id] = rank
                semantic.append((chunk_id, score))
        known = {chunk_id for chunk_id, _ in lexical}
        lexical += [(c, score) for c, (_, score) in placed.items() if c not in known]
        return lexical, rrf_of_ranks([semantic_rank, lexical_rank], k=k)


def _convex(
    fusion: ConvexFusion,
    semantic: list[tuple[ChunkId, float]],
    found: LexicalCandidates | None,
    ceiling: float,
    *,
    request: SearchRequest,
    lone: ChunkId | None,
) -> tuple[list[tuple[ChunkId, float]], list[tuple[ChunkId, float]]]:
    """The lexical ranking's part read and the first `k` of `fusion` over every chunk,
    each BM25 score handed over as its share of `ceiling` (`bm25_coverage`).

    `semantic` holds the semantic first `max(k, fusion.depth)`. The lexical
    ranking is read to `k`, plus the score of each of the semantic first
    `depth` it holds: a deeper lexical candidate scores below those `k`, and
    a deeper semantic one has no semantic evidence. `lone` (`_lone_holder`),
    when given, comes first.
    """
    ranking = None if found is None else LexicalRanking(found)
    lexical = [] if ranking is None else ranking.first(request.k)
    if ranking is not None:
        read = {chunk_id for chunk_id, _ in lexical}
        asked = [chunk_id for chunk_id, _ in semantic[: fusion.depth]]
        asked += [] if lone is None else [lone]
        scored = ranking.scores_of(chunk_id for chunk_id in asked if chunk_id not in read)
        lexical += sorted(scored.items(), key=lambda pair: (-pair[1], pair[0]))
    covered = [(chunk_id, bm25_coverage(score, ceiling)) for chunk_id, score in lexical]
    fused = fusion.fuse(semantic, covered, query=request.query)
    if lone is not None and fused and fused[0][0] != lone:
        first = (lone, math.nextafter(fused[0][1], math.inf))
        fused = [first, *(pair for pair in fused if pair[0] != lone)]
    return lexical, fused[: request.k]


async def _score_semantically(
    pair: tuple[EmbeddingProvider, SemanticChunkSource] | None,
    vector: Sequence[float] | None,
    semantic: list[tuple[ChunkId, float]],
    fused: list[tuple[ChunkId, float]],
    request: SearchRequest,
) -> None:
    """Add to `semantic` the score of each of `fused` it lacks that the store embeds, so a
    result's `semantic` and `confidence` do not depend on how deep `k` read the channel."""
    known = {chunk_id for chunk_id, _ in semantic}
    missing = [chunk_id for chunk_id, _ in fused if chunk_id not in known]
    if pair is None or vector is None or not missing:
        return
    scores = await pair[1].semantic_scores(
        vector, request.tenant_id, missing, source_ids=request.filter_list()
    )
    semantic += list(scores.items())


#: The most chunks holding a one-word query's every term whose documents are read to
#: find whether they are all one document's (a bound on that read's cost).
LONE_DOCUMENT_HOLDERS = 16


async def _lone_holder(
    source: ChunkReader, found: LexicalCandidates | None, request: SearchRequest
) -> ChunkId | None:
    """What an identifier query gets first: of a one-word query, the one chunk holding
    every term, or, when 2 to `LONE_DOCUMENT_HOLDERS` hold them all and all belong to
    one document, that document's best by BM25 (ties by id); else `None`."""
    if found is None or len(request.text.split()) != 1 or not len(found.chunk_ids):
        return None
    rows = np.flatnonzero((found.counts > 0).all(axis=1))
    if not 0 < len(rows) <= LONE_DOCUMENT_HOLDERS:
        return None
    holders = [ChunkId(found.chunk_ids[row]) for row in rows]
    if len(holders) == 1:
        return holders[0]
    documents = {chunk.source_id for chunk in await source.get_chunks(holders, request.tenant_id)}
    if len(documents) != 1:
        return None
    scores = LexicalRanking(found).scores_of(holders)
    return min(holders, key=lambda chunk_id: (-scores.get(chunk_id, 0.0), chunk_id))


def _reaching(
    ranking: LexicalRanking, *, floor: float, reach: float, at_least: int
) -> list[tuple[ChunkId, float]]:
    """The lexical ranking's first `at_least`, and on past the last place `r`
    with `1 / (RRF_K + r) + reach >= floor`.

    With `g = floor - reach`, a depth of `int(1 / g) - RRF_K + 2` makes
    `1 / (RRF_K + depth) <= g / (1 + g)`, below `g` by far more than float
    rounding until the depth passes any ranking's size.
    """
    if floor <= reach:
        return ranking.first(ranking.size)
    return ranking.first(max(at_least, int(1.0 / (floor - reach)) - RRF_K + 2))


#: How many chunks each channel ranks at least before a fusion other than RRF.
CHANNEL_DEPTH = 10


async def _semantic_channel(
    pair: tuple[EmbeddingProvider, SemanticChunkSource] | None,
    query: str,
    tenant_id: TenantId,
    k: int,
    source_ids: Sequence[str] | None,
) -> tuple[list[float] | None, list[tuple[ChunkId, float]]]:
    """The query's `embed_query` vector and its `k` best chunk ids by exact
    cosine, with their scores; `(None, [])` when not run."""
    if pair is None:
        return None, []
    [vector] = await pair[0].embed_query([query])
    return vector, await _ranking(pair, vector, tenant_id, k, source_ids)


async def _ranking(
    pair: tuple[EmbeddingProvider, SemanticChunkSource],
    vector: Sequence[float],
    tenant_id: TenantId,
    k: int,
    source_ids: Sequence[str] | None,
) -> list[tuple[ChunkId, float]]:
    return await pair[1].semantic_ranking(vector, tenant_id, k=k, source_ids=source_ids)


async def _lexical_candidates(
    source: LexicalChunkSource | None,
    query: str,
    tenant_id: TenantId,
    source_ids: Sequence[str] | None,
) -> tuple[LexicalCandidates | None, float]:
    """The store's candidates for the query's terms, and the query's
    `bm25_ceiling` over the whole corpus; `(None, 0.0)` when not run."""
    if source is None:
        return None, 0.0
    terms = source.analyzer.terms(query)
    if not terms:
        return None, 0.0
    found = await source.lexical_candidates(terms, tenant_id, source_ids=source_ids)
    found = found.asked_by(terms)
    return found, bm25_ceiling(found)
