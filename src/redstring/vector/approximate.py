"""An in-memory vector store that searches large tenants through an IVF index (ADR 0225).

Needs the `ann` extra (faiss-cpu). ADR 0191 chose faiss for its filter inside
the search; ADR 0225 replaced the HNSW graph with an inverted-file index,
whose build is about ten times cheaper and deterministic on every thread.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import faiss
import numpy as np
import numpy.typing as npt

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.exact_search import top_k, unit_vector, validate_search_args
from redstring.domain.ids import TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.validation import require_tenant_id
from redstring.domain.vector import VectorMatch
from redstring.vector.in_memory import InMemoryVectorStore, _Matrix

#: A tenant (or the rows a type filter leaves) smaller than this is searched
#: exactly; ADR 0191 gives the measurements behind it.
EXACT_BELOW = 50_000
#: Candidates asked of the index, as a multiple of `k`, ranked exactly after.
OVERFETCH = 2
#: Lists (k-means cells) searched per query; ADR 0225 gives the recall behind it.
PROBES = 32
#: Rows per list the index aims at: lists = sqrt(rows), at least this many
#: training rows each (faiss warns below 39).
MIN_ROWS_PER_LIST = 39
#: k-means iterations of the training, on faiss's seeded sample of at most
#: 256 rows per list.
TRAINING_ITERATIONS = 10

#: A candidate this close below the k-th score counts as tied with it.
TIE_TOLERANCE = 1e-6

Rows = npt.NDArray[np.int64]


def lists_for(rows: int) -> int:
    """How many lists an index over `rows` rows has: about sqrt(rows), at least one."""
    return max(1, min(round(math.sqrt(rows)), rows // MIN_ROWS_PER_LIST))


def _tied_at_the_edge(
    candidates: npt.NDArray[np.float32],
    query: npt.NDArray[np.float32],
    hits: list[tuple[int, float]],
    k: int,
    *,
    complete: bool,
) -> bool:
    """Whether the worst candidate ties the k-th hit, so rows tied with it may be missing.

    The exact tie-break (ascending id) needs every tied row; the index's list
    may have stopped in the middle of a tie, so such a search is redone exactly.
    """
    if complete or len(hits) < k:
        return False
    worst = float(np.min((1.0 + candidates @ query) / 2.0))
    return worst >= hits[-1][1] - TIE_TOLERANCE


@dataclass(frozen=True)
class _Index:
    source: _Matrix  # the exact store's snapshot the index was built from
    index: faiss.IndexIVFFlat


def _build(rows: npt.NDArray[np.float32]) -> faiss.IndexIVFFlat:
    """An inverted-file index over unit `rows`: seeded k-means cells, rows kept in full."""
    dimension = rows.shape[1]
    index = faiss.IndexIVFFlat(
        faiss.IndexFlatIP(dimension), dimension, lists_for(len(rows)), faiss.METRIC_INNER_PRODUCT
    )
    index.cp.niter = TRAINING_ITERATIONS
    index.cp.seed = 1234  # faiss's default, stated: the sample and the start are seeded
    index.train(rows)
    index.add(rows)
    return index


class ApproximateVectorStore(InMemoryVectorStore):
    """`InMemoryVectorStore` whose large tenants are searched through an IVF index.

    - A tenant of fewer than `exact_below` vectors is searched exactly, match
      for match as `InMemoryVectorStore` does.
    - Above it the tenant's index (faiss `IndexIVFFlat`: about sqrt(rows)
      k-means lists, trained from a seeded sample on the first search after a
      write, so the same writes give the same index and the same answers)
      scans the `probes` lists nearest the query for `k * OVERFETCH`
      candidates, which are ranked by exact cosine with the exact store's
      tie-break and `min_score`. Recall is below 1 (ADR 0225 states it).
    - `entity_types` applies before `k`, inside the scan (a bitmap of the
      rows it keeps). When it keeps fewer than `exact_below` rows, or the
      scan finds fewer than `k` of them, those rows are searched exactly;
      so is a search whose worst candidate ties the k-th match (rows tied
      with it may lie beyond the candidates, and ties break by id).
    - Each tenant has its own index; no search reads another tenant's.
    """

    def __init__(
        self,
        *,
        dimension: int,
        exact_below: int = EXACT_BELOW,
        probes: int = PROBES,
    ) -> None:
        super().__init__(dimension=dimension)
        if isinstance(exact_below, bool) or not isinstance(exact_below, int) or exact_below < 0:
            raise InvalidArgumentError(
                name="exact_below", value=exact_below, requirement="an int of 0 or more"
            )
        if isinstance(probes, bool) or not isinstance(probes, int) or probes < 1:
            raise InvalidArgumentError(
                name="probes", value=probes, requirement="an int of 1 or more"
            )
        self._exact_below = exact_below
        self._probes = probes
        self._indexes: dict[TenantId, _Index] = {}

    @property
    def exact_below(self) -> int:
        """Tenants (and filtered row sets) smaller than this are searched exactly."""
        return self._exact_below

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        await super().purge_tenant(tenant_id)
        self._indexes.pop(tenant_id, None)

    async def search(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        entity_types: Sequence[str] | None = None,
        min_score: float | None = None,
    ) -> list[VectorMatch]:
        require_tenant_id(tenant_id)
        validate_search_args(k, min_score)
        part = self._tenants.get(tenant_id)
        if part is None or k == 0 or len(part.records) < self._exact_below:
            return await super().search(
                vector, tenant_id, k=k, entity_types=entity_types, min_score=min_score
            )
        query = unit_vector(vector, dimension=self.dimension, context="query vector")
        matrix = self._matrix(part)
        eligible = None
        kept = len(matrix.ids)
        if entity_types is not None:
            wanted = [normalize_name(t) for t in entity_types]
            eligible = np.isin(matrix.normalized_types, wanted)
            kept = int(eligible.sum())
        if kept >= self._exact_below and kept > 0:
            rows = self._nearest(tenant_id, matrix, query, min(kept, k * OVERFETCH), eligible)
            if rows.size >= min(k, kept):
                candidates = matrix.rows[rows]
                hits = top_k(
                    candidates,
                    query,
                    [matrix.id_strings[row] for row in rows.tolist()],
                    k=k,
                    eligible=None,
                    min_score=min_score,
                )
                if not _tied_at_the_edge(candidates, query, hits, k, complete=rows.size == kept):
                    chosen = rows.tolist()
                    return [self._match(matrix, chosen[at], score) for at, score in hits]
        hits = top_k(  # exact, as the exact store searches
            matrix.rows, query, matrix.id_strings, k=k, eligible=eligible, min_score=min_score
        )
        return [self._match(matrix, row, score) for row, score in hits]

    @staticmethod
    def _match(matrix: _Matrix, row: int, score: float) -> VectorMatch:
        return VectorMatch(entity_id=matrix.ids[row], entity_type=matrix.types[row], score=score)

    def _nearest(
        self,
        tenant_id: TenantId,
        matrix: _Matrix,
        query: npt.NDArray[np.float32],
        fetch: int,
        eligible: npt.NDArray[np.bool_] | None,
    ) -> Rows:
        """Row numbers of the `fetch` nearest kept rows to `query` in the probed lists."""
        held = self._indexes.get(tenant_id)
        if held is None or held.source is not matrix:
            held = _Index(source=matrix, index=_build(matrix.rows))
            self._indexes[tenant_id] = held
        params = faiss.SearchParametersIVF()
        params.nprobe = self._probes
        bitmap = None
        if eligible is not None:  # the filter applies inside the scan, before `k`
            bitmap = np.packbits(eligible, bitorder="little")
            params.sel = faiss.IDSelectorBitmap(eligible.size, faiss.swig_ptr(bitmap))
        _, found = held.index.search(query[None, :], fetch, params=params)
        rows = found[0]
        return np.asarray(rows[rows >= 0], dtype=np.int64)
