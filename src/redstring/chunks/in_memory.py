"""A complete chunk store held in process memory: an inverted index and exact cosine."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from redstring.chunks.in_memory_postings import Postings
from redstring.chunks.in_memory_rows import Row
from redstring.chunks.matrix import ChunkMatrix
from redstring.domain.bm25 import CorpusStats, LexicalCandidates
from redstring.domain.chunk import (
    ChunkId,
    ChunkManifest,
    StoredChunk,
    kept_embeddings,
    require_chunks_of_source,
)
from redstring.domain.chunk_retrieval import ChunkMatch
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.exact_search import (
    FloatMatrix,
    unit_vector,
    unit_vectors,
    validate_search_args,
)
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.summary import ChunkSummary, chunk_summary_of
from redstring.domain.tokenize import DEFAULT_LANGUAGE, Analyzer, document_length
from redstring.domain.validation import require_str, require_tenant_id, require_writable_chunks
from redstring.storage.describe import DescribedStore


@dataclass
class _Lexical:
    """A tenant's chunks by slot number, and each asked term's postings as arrays.

    Built on the first lexical query after a write; a write drops it. A slot
    no live chunk holds has id `None` and appears in no posting.
    """

    ids: npt.NDArray[np.object_]
    live: npt.NDArray[np.bool_]
    lengths: npt.NDArray[np.int64]
    sources: npt.NDArray[np.str_]
    #: term -> (slots holding it, ascending; its count in each)
    terms: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = field(
        default_factory=dict
    )


@dataclass
class _Tenant:
    rows: dict[ChunkId, Row] = field(default_factory=dict)
    #: Each live chunk's slot: a number given on insert, never reused until renumbered,
    #: so every posting lists its slots in ascending order (ADR 0188).
    slot_of: dict[ChunkId, int] = field(default_factory=dict)
    next_slot: int = 0
    #: term -> the slots holding it and its count in each (a chunk posted once per term).
    postings: Postings = field(default_factory=Postings)
    total_length: int = 0
    sources: dict[str, set[ChunkId]] = field(default_factory=dict)
    entities: dict[EntityId, set[ChunkId]] = field(default_factory=dict)
    cache: ChunkMatrix | None = None
    lexical: _Lexical | None = None


class InMemoryChunkStore(DescribedStore):
    """A `ChunkStore` for a single process.

    Per tenant: the chunks, an inverted index from each term (as the store's
    `analyzer` of `language` gives it) to the chunks containing it with their
    counts, running corpus totals, and the embedded rows stacked into one
    float32 matrix on the first search after a write. Chunks are copied in and out.
    """

    def __init__(self, *, dimension: int, language: str = DEFAULT_LANGUAGE) -> None:
        if dimension <= 0:
            raise InvalidArgumentError(
                name="dimension",
                value=dimension,
                requirement="a positive whole number",
                message=f"dimension must be positive, got {dimension}",
            )
        self._dimension = dimension
        self._analyzer = Analyzer(language)
        self._tenants: dict[TenantId, _Tenant] = {}

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def analyzer(self) -> Analyzer:
        return self._analyzer

    # -- writing -----------------------------------------------------------

    async def upsert_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        require_writable_chunks(chunks)
        latest: dict[tuple[TenantId, ChunkId], tuple[StoredChunk, FloatMatrix | None]] = {}
        for chunk, unit in zip(chunks, self._units(chunks), strict=True):
            key = (chunk.tenant_id, chunk.id)
            latest.pop(key, None)  # a later copy of a chunk is filed after the chunks before it
            latest[key] = (chunk, unit)
        by_tenant: dict[TenantId, tuple[list[Row], list[Counter[str]]]] = {}
        for (tenant_id, chunk_id), (chunk, unit) in latest.items():
            counts = Counter(self._analyzer.terms(chunk.text))
            rows, terms = by_tenant.setdefault(tenant_id, ([], []))
            rows.append(Row.of(chunk, chunk_id, document_length(counts), unit))
            terms.append(counts)
        for tenant_id, (rows, terms) in by_tenant.items():
            part = self._tenants.setdefault(tenant_id, _Tenant())
            for row in rows:
                _remove(part, row.id)
            _insert(part, rows, terms)
            _compact(part)

    async def replace_source(
        self,
        source_id: str,
        tenant_id: TenantId,
        chunks: Sequence[StoredChunk],
        *,
        keep_embeddings: Collection[ChunkId] = (),
    ) -> None:
        """By difference: a chunk stored already keeps its slot and postings."""
        require_str("source_id", source_id)
        require_tenant_id(tenant_id)
        require_writable_chunks(chunks)
        require_chunks_of_source(chunks, source_id, tenant_id)
        kept = kept_embeddings(chunks, keep_embeddings)
        given = {chunk.id: chunk for chunk in chunks}  # the last of each id wins
        units = self._units(list(given.values()))
        part = self._tenants.setdefault(tenant_id, _Tenant())
        for chunk_id in list(part.sources.get(source_id, ())):
            if chunk_id not in given:
                _remove(part, chunk_id)
        fresh: list[Row] = []
        terms: list[Counter[str]] = []
        for (chunk_id, chunk), unit in zip(given.items(), units, strict=True):
            keep = chunk_id in kept
            row = part.rows.get(chunk_id)
            if row is not None:
                _place(part, row, chunk, unit, keep=keep)
                continue
            counts = Counter(self._analyzer.terms(chunk.text))
            fresh.append(Row.of(chunk, chunk_id, document_length(counts), unit))
            if keep:  # nothing stored to keep: written without a vector or its model
                fresh[-1].embedding_model = None
            terms.append(counts)
        _insert(part, fresh, terms)
        _compact(part)

    async def delete_source(self, source_id: str, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        if part is None:
            return
        for chunk_id in list(part.sources.get(source_id, ())):
            _remove(part, chunk_id)
        _compact(part)

    async def delete_chunks(self, chunk_ids: Sequence[ChunkId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        if part is not None:
            for chunk_id in chunk_ids:
                _remove(part, ChunkId(str(chunk_id)))
            _compact(part)

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        self._tenants.pop(tenant_id, None)

    # -- reading -----------------------------------------------------------

    async def get_chunks(
        self, chunk_ids: Sequence[ChunkId], tenant_id: TenantId
    ) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        if part is None:
            return []
        wanted = sorted({str(chunk_id) for chunk_id in chunk_ids})
        found = (part.rows.get(ChunkId(chunk_id)) for chunk_id in wanted)
        return [row.chunk() for row in found if row is not None]

    async def chunks_of_source(self, source_id: str, tenant_id: TenantId) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        if part is None:
            return []
        rows = [part.rows[chunk_id] for chunk_id in part.sources.get(source_id, ())]
        return [r.chunk() for r in sorted(rows, key=lambda r: (r.index, r.id))]

    async def source_manifest(self, source_id: str, tenant_id: TenantId) -> list[ChunkManifest]:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        rows = [] if part is None else [part.rows[i] for i in part.sources.get(source_id, ())]
        return [
            ChunkManifest.of(r.chunk(embedded=False), embedded=r.unit is not None)
            for r in sorted(rows, key=lambda r: (r.index, r.id))
        ]

    async def list_chunks(self, tenant_id: TenantId) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        if part is None:
            return []
        rows = sorted(part.rows.values(), key=lambda r: (r.source_id, r.index, r.id))
        return [row.chunk() for row in rows]

    async def list_tenants(self) -> list[TenantId]:
        held = (t for t, part in self._tenants.items() if any(part.sources.values()))
        return sorted(held, key=str)

    async def chunk_summary(self, tenant_id: TenantId) -> ChunkSummary:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        sources = {} if part is None else part.sources
        embedded = 0 if part is None else sum(row.unit is not None for row in part.rows.values())
        return chunk_summary_of(
            ((source, len(ids)) for source, ids in sources.items() if ids), embedded=embedded
        )

    async def embedding_models(self, tenant_id: TenantId) -> dict[str | None, int]:
        require_tenant_id(tenant_id)
        return dict(Counter(_embedding_models(self._tenants.get(tenant_id))))

    async def embeds_with(self, tenant_id: TenantId, models: Collection[str | None]) -> bool:
        require_tenant_id(tenant_id)
        wanted = set(models)
        return any(model in wanted for model in _embedding_models(self._tenants.get(tenant_id)))

    async def chunks_of_entity(self, entity_id: EntityId, tenant_id: TenantId) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        if part is None:
            return []
        rows = [part.rows[chunk_id] for chunk_id in part.entities.get(entity_id, ())]
        rows.sort(key=lambda r: (r.source_id, r.index, r.id))
        return [row.chunk() for row in rows]

    # -- searching ---------------------------------------------------------

    async def lexical_candidates(
        self,
        terms: Sequence[str],
        tenant_id: TenantId,
        *,
        source_ids: Sequence[str] | None = None,
    ) -> LexicalCandidates:
        require_tenant_id(tenant_id)
        asked = list(dict.fromkeys(terms))
        part = self._tenants.get(tenant_id) or _Tenant()
        count = len(part.rows)
        stats = CorpusStats.from_totals(
            document_count=count,
            total_length=part.total_length,
            document_frequencies={term: part.postings.frequency(term) for term in asked},
        )
        if not asked or not part.rows:
            return LexicalCandidates.empty(asked, stats)
        index = _lexical(part)
        columns = [_term_postings(part, index, term) for term in asked]
        rows = _union([held for held, _ in columns], len(index.ids))
        if source_ids is not None:
            wanted = np.array(list(source_ids), dtype=np.str_)
            rows = rows[np.isin(index.sources[rows], wanted)]
        counts = np.zeros((len(rows), len(asked)), dtype=np.int64)
        for column, (held, tfs) in enumerate(columns):
            at = np.searchsorted(rows, held)
            inside = at < len(rows)
            inside[inside] = rows[at[inside]] == held[inside]
            counts[at[inside], column] = tfs[inside]
        return LexicalCandidates(
            terms=tuple(asked),
            chunk_ids=index.ids[rows],
            lengths=index.lengths[rows],
            counts=counts,
            document_frequencies=np.array(
                [stats.document_frequencies[t] for t in asked], dtype=np.int64
            ),
            document_count=stats.document_count,
            average_length=stats.average_length,
        )

    async def search_chunks(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[ChunkMatch]:
        ranked = await self.semantic_ranking(vector, tenant_id, k=k, source_ids=source_ids)
        rows = self._tenants[tenant_id].rows if ranked else {}
        return [ChunkMatch(chunk=rows[chunk_id].chunk(), score=score) for chunk_id, score in ranked]

    async def semantic_ranking(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[tuple[ChunkId, float]]:
        require_tenant_id(tenant_id)
        k, _ = validate_search_args(k, None)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        part = self._tenants.get(tenant_id)
        if part is None or k == 0:
            return []
        return _matrix(part).ranking(query, k=k, source_ids=source_ids)

    async def semantic_ranks(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        chunk_ids: Sequence[ChunkId],
        *,
        source_ids: Sequence[str] | None = None,
    ) -> dict[ChunkId, tuple[int, float]]:
        require_tenant_id(tenant_id)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        part = self._tenants.get(tenant_id)
        if part is None or not chunk_ids:
            return {}
        return _matrix(part).ranks(query, chunk_ids, source_ids=source_ids)

    async def semantic_scores(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        chunk_ids: Sequence[ChunkId],
        *,
        source_ids: Sequence[str] | None = None,
    ) -> dict[ChunkId, float]:
        require_tenant_id(tenant_id)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        part = self._tenants.get(tenant_id)
        if part is None or not chunk_ids:
            return {}
        return _matrix(part).scores(query, chunk_ids, source_ids=source_ids)

    def _units(self, chunks: Sequence[StoredChunk]) -> list[FloatMatrix | None]:
        """Each chunk's checked unit row (`None` without an embedding), scaled as one matrix.

        The rows and errors of `unit_vector` one chunk at a time (`unit_vectors`).
        """
        embedded = [i for i, chunk in enumerate(chunks) if chunk.embedding is not None]
        units = unit_vectors(
            [chunks[i].embedding or [] for i in embedded],
            dimension=self._dimension,
            context_of=lambda at: f"embedding of chunk {chunks[embedded[at]].id}",
        )
        unit_of = dict(zip(embedded, units, strict=True))
        return [unit_of.get(i) for i in range(len(chunks))]


def _insert(part: _Tenant, rows: Sequence[Row], counts: Sequence[Counter[str]]) -> None:
    """File `rows` (ids not stored) at the next slots, `counts` their terms' counts."""
    first = part.next_slot
    for slot, row in enumerate(rows, first):
        chunk_id = row.id
        part.rows[chunk_id] = row
        part.slot_of[chunk_id] = slot
        part.total_length += row.length
        part.sources.setdefault(row.source_id, set()).add(chunk_id)
        for entity_id in row.entity_ids:
            part.entities.setdefault(entity_id, set()).add(chunk_id)
    part.next_slot += len(rows)
    for row, terms in zip(rows, part.postings.add(first, counts), strict=True):
        row.terms = terms
    part.cache = part.lexical = None


def _place(
    part: _Tenant, row: Row, chunk: StoredChunk, unit: FloatMatrix | None, *, keep: bool
) -> None:
    """Write `chunk` over its stored `row` (same id, so same text): slot and postings stay.

    With `keep` the row keeps its vector and the model it names.
    """
    model = row.embedding_model
    if list(chunk.entity_ids) != list(row.entity_ids):
        for entity_id in row.entity_ids:
            _discard(part.entities, entity_id, row.id)
        for entity_id in chunk.entity_ids:
            part.entities.setdefault(entity_id, set()).add(row.id)
    row.take(chunk)
    if keep:
        row.embedding_model = model
        unit = row.unit
    if unit is not row.unit and not (
        unit is not None and row.unit is not None and np.array_equal(unit, row.unit)
    ):
        row.unit = unit
        part.cache = None


def _remove(part: _Tenant, chunk_id: ChunkId) -> None:
    row = part.rows.pop(chunk_id, None)
    if row is None:
        return
    del part.slot_of[chunk_id]  # its postings are skipped from now on, dropped by _compact
    part.postings.drop(row.terms)
    part.total_length -= row.length
    _discard(part.sources, row.source_id, chunk_id)
    for entity_id in row.entity_ids:
        _discard(part.entities, entity_id, chunk_id)
    part.cache = part.lexical = None


def _embedding_models(part: _Tenant | None) -> Iterator[str | None]:
    """The model each embedded chunk of `part` names, in no order."""
    rows = [] if part is None else part.rows.values()
    return (row.embedding_model for row in rows if row.unit is not None)


def _discard[KeyT](index: dict[KeyT, set[ChunkId]], key: KeyT, chunk_id: ChunkId) -> None:
    members = index.get(key)
    if members is not None:
        members.discard(chunk_id)
        if not members:
            del index[key]


def _matrix(part: _Tenant) -> ChunkMatrix:
    if part.cache is None:
        embedded = [(chunk_id, row) for chunk_id, row in part.rows.items() if row.unit is not None]
        units = [row.unit for _, row in embedded if row.unit is not None]
        part.cache = ChunkMatrix(
            ids=[chunk_id for chunk_id, _ in embedded],
            sources=np.array([row.source_id for _, row in embedded], dtype=np.str_),
            rows=np.stack(units) if units else np.zeros((0, 1), dtype=np.float32),
        )
    return part.cache


def _lexical(part: _Tenant) -> _Lexical:
    if part.lexical is None:
        size = part.next_slot
        ids = np.full(size, None, dtype=object)
        live = np.zeros(size, dtype=np.bool_)
        lengths = np.zeros(size, dtype=np.int64)
        sources = np.full(size, "", dtype=object)
        for chunk_id, slot in part.slot_of.items():
            row = part.rows[chunk_id]
            ids[slot], lengths[slot], sources[slot] = chunk_id, row.length, row.source_id
            live[slot] = True
        part.lexical = _Lexical(
            ids=ids, live=live, lengths=lengths, sources=sources.astype(np.str_)
        )
    return part.lexical


def _compact(part: _Tenant) -> None:
    """Once most slots are dead, give the live chunks slots 0..n-1 in their old order.

    Postings keep ascending order and lose the entries of chunks taken out, so
    what they hold stays within twice the live chunks' postings.
    """
    if part.next_slot <= 2 * len(part.rows) + 64:
        return
    new_slot = np.full(part.next_slot, -1, dtype=np.int64)
    order = sorted(part.slot_of.values())
    new_slot[order] = np.arange(len(order), dtype=np.int64)
    part.slot_of = {chunk_id: int(new_slot[slot]) for chunk_id, slot in part.slot_of.items()}
    renamed = part.postings.renumber(new_slot)
    if renamed is not None:
        for row in part.rows.values():
            row.terms = renamed[row.terms]
    part.next_slot = len(order)
    part.lexical = None


def _term_postings(
    part: _Tenant, index: _Lexical, term: str
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    cached = index.terms.get(term)
    if cached is None:
        cached = index.terms[term] = part.postings.arrays(term, index.live)
    return cached


def _union(held: list[npt.NDArray[np.int64]], size: int) -> npt.NDArray[np.int64]:
    """The ascending distinct slots of several ascending slot arrays."""
    if len(held) == 1:
        return held[0]
    mask = np.zeros(size, dtype=np.bool_)
    for slots in held:
        mask[slots] = True
    return np.flatnonzero(mask)
