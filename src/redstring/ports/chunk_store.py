"""Storing the passages documents were split into, per tenant, and finding them again.

Chunks are keyed by (tenant, derived chunk id). A store indexes the terms
its `analyzer` (`redstring.domain.tokenize.Analyzer`) gives for each chunk's
text and never any other way, and a query is analysed by the same analyzer,
so BM25 (`redstring.domain.bm25`) ranks identically over every adapter.
Filters (`source_ids`) apply before `k`; `source_ids=None` means no filter
and `[]` matches nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol, runtime_checkable

from redstring.domain.bm25 import LexicalCandidates
from redstring.domain.chunk import ChunkId, ChunkManifest, StoredChunk
from redstring.domain.chunk_retrieval import ChunkMatch
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.summary import ChunkSummary
from redstring.domain.tokenize import Analyzer


@runtime_checkable
class ChunkWriter(Protocol):
    """Writes chunks."""

    async def upsert_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        """Insert or replace each chunk, keyed by (tenant, chunk id), as one atomic batch.

        An embedding of the wrong length raises `DimensionMismatchError`, a zero
        or non-finite one `InvalidVectorError`; either way nothing is written.
        """
        ...

    async def replace_source(
        self,
        source_id: str,
        tenant_id: TenantId,
        chunks: Sequence[StoredChunk],
        *,
        keep_embeddings: Collection[ChunkId] = (),
    ) -> None:
        """Make `chunks` the whole of `source_id` in `tenant_id`, atomically.

        Chunks of that source not in `chunks` are removed; every chunk given
        must belong to `source_id` and `tenant_id`, or `ValueError`
        (`ChunkSourceMismatchError`) is raised and nothing changes. A chunk
        whose id is in `keep_embeddings` keeps the embedding its stored row
        holds and the `embedding_model` that row names (none if the row holds
        none or is not stored): it must carry no embedding itself
        (`InvalidArgumentError`), and the store never reads that vector out.
        Ids in `keep_embeddings` that no given chunk has are ignored.
        """
        ...


@runtime_checkable
class ChunkReader(Protocol):
    """Reads the chunks of one tenant."""

    async def get_chunks(
        self, chunk_ids: Sequence[ChunkId], tenant_id: TenantId
    ) -> list[StoredChunk]:
        """The chunks of these ids in `tenant_id`, ordered by id string; missing ids omitted."""
        ...

    async def chunks_of_source(self, source_id: str, tenant_id: TenantId) -> list[StoredChunk]:
        """Every chunk of `source_id` in `tenant_id`, ordered by `index`."""
        ...

    async def source_manifest(self, source_id: str, tenant_id: TenantId) -> list[ChunkManifest]:
        """The manifest of every chunk of `source_id` in `tenant_id`, in `chunks_of_source` order.

        Reads no text and no embedding: what `index_documents` plans a re-run from.
        """
        ...

    async def chunks_of_entity(self, entity_id: EntityId, tenant_id: TenantId) -> list[StoredChunk]:
        """Every chunk of `tenant_id` naming `entity_id` in `entity_ids`, by (source id, index)."""
        ...

    async def list_chunks(self, tenant_id: TenantId) -> list[StoredChunk]:
        """Every chunk of `tenant_id`, ordered by (source id, index, id)."""
        ...

    async def list_tenants(self) -> list[TenantId]:
        """Every tenant holding at least one chunk, once each, ordered by id string."""
        ...

    async def chunk_summary(self, tenant_id: TenantId) -> ChunkSummary:
        """How many chunks `tenant_id` holds, per source id.

        Counted by aggregates over the store's indexes, never by loading rows;
        an unknown tenant gives zeros.
        """
        ...


@runtime_checkable
class ChunkModels(Protocol):
    """Counts a tenant's passage vectors by the embedding model that made them.

    A capability of its own, so a chunk store written before it still reads
    as a `ChunkReader`.
    """

    async def embedding_models(self, tenant_id: TenantId) -> dict[str | None, int]:
        """How many embedded chunks of `tenant_id` each embedding model made.

        Keys are the models the rows holding a vector name (`None`: a row
        naming none); a chunk without a vector is not counted, whatever model
        it names. An unknown tenant gives `{}`. This may read every embedded
        row of the tenant: a caller asking before each search keeps the answer
        until it writes (as the client does).
        """
        ...

    async def embeds_with(self, tenant_id: TenantId, models: Collection[str | None]) -> bool:
        """Whether some embedded chunk of `tenant_id` names one of `models` (`None`: a
        chunk naming none). Reading stops at the first such chunk, so a tenant whose
        passages these models embedded answers at once; `False` reads every one.
        """
        ...


@runtime_checkable
class LexicalChunkSource(Protocol):
    """Lexical candidates from an inverted index of terms: a lookup, never a scan."""

    @property
    def analyzer(self) -> Analyzer:
        """How this index turns text into terms; analyse a query with it before asking."""
        ...

    async def lexical_candidates(
        self,
        terms: Sequence[str],
        tenant_id: TenantId,
        *,
        source_ids: Sequence[str] | None = None,
    ) -> LexicalCandidates:
        """Every chunk of `tenant_id` containing at least one of `terms`, with the statistics.

        `terms` are as `analyzer` gives them; another form matches nothing.

        Columns: each chunk appears once, by id, with its term count
        and the count of each asked term it contains (a caller fetches only the `k` best
        chunks). The statistics cover the tenant's whole corpus (not only
        `source_ids`) and give a document frequency for every asked term, 0
        for an unknown one. `source_ids` filters the candidates;
        candidates are unordered and untruncated (`rank_chunks` applies `k`).
        """
        ...


@runtime_checkable
class SemanticChunkSource(Protocol):
    """Exact cosine search over the embedded chunks of one tenant."""

    @property
    def dimension(self) -> int:
        """The length of every stored embedding and every query vector."""
        ...

    async def search_chunks(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[ChunkMatch]:
        """The `k` best embedded chunks of `tenant_id`, best first, scores on 0..1.

        Chunks without an embedding are never matched. `source_ids` applies
        before `k`; ties break by ascending chunk id string. `k == 0` returns
        `[]`, `k < 0` raises `ValueError`, a wrong-length vector raises
        `DimensionMismatchError`, a zero one `InvalidVectorError`.
        """
        ...

    async def semantic_ranking(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[tuple[ChunkId, float]]:
        """`search_chunks`'s answer as `(chunk id, score)` pairs, no chunk read.

        The same ids in the same order with the same scores, and the same
        refusals; what a caller that ranks deep and reads only a few needs
        (the exact RRF of `ChunkRetriever`).
        """
        ...

    async def semantic_ranks(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        chunk_ids: Sequence[ChunkId],
        *,
        source_ids: Sequence[str] | None = None,
    ) -> dict[ChunkId, tuple[int, float]]:
        """The one-based rank and score `semantic_ranking` gives each of
        `chunk_ids` (a ranking deep enough to hold it); an id it never ranks
        (not stored, not embedded, another tenant's, not of `source_ids`) is absent.
        """
        ...

    async def semantic_scores(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        chunk_ids: Sequence[ChunkId],
        *,
        source_ids: Sequence[str] | None = None,
    ) -> dict[ChunkId, float]:
        """The score `semantic_ranking` gives each of `chunk_ids`, without its
        rank (no other row read); an id it never ranks is absent, as in `semantic_ranks`.
        """
        ...


@runtime_checkable
class ChunkPurge(Protocol):
    """Removes chunks wholesale."""

    async def delete_source(self, source_id: str, tenant_id: TenantId) -> None:
        """Delete every chunk of `source_id` in `tenant_id`; an unknown source is a no-op."""
        ...

    async def delete_chunks(self, chunk_ids: Sequence[ChunkId], tenant_id: TenantId) -> None:
        """Delete the chunks of these ids in `tenant_id`, atomically; ids not stored are ignored.

        Their postings, vectors and share of the corpus statistics go with
        them, as if they had never been written; other tenants are untouched.
        What a caller removing a large source's old chunks a step at a time
        inside one transaction calls.
        """
        ...

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        """Delete every chunk of `tenant_id`; other tenants are untouched."""
        ...


@runtime_checkable
class ChunkStore(
    ChunkWriter,
    ChunkReader,
    ChunkModels,
    LexicalChunkSource,
    SemanticChunkSource,
    ChunkPurge,
    Protocol,
):
    """All chunk-store capabilities together."""
