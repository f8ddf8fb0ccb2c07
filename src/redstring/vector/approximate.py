"""An in-memory vector store that searches large tenants through an HNSW index (ADR 0191).

Needs the `ann` extra (faiss-cpu).
"""

from __future__ import annotations

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
#: Candidates asked of the graph, as a multiple of `k`, ranked exactly after.
OVERFETCH = 2
#: HNSW settings: edges per node (M), and the candidate lists of building
#: (efConstruction) and of searching (efSearch, raised to the number fetched).
CONNECTIVITY = 16
EXPANSION_ADD = 200
EXPANSION_SEARCH = 128

#: A candidate this close below the k-th score counts as tied with it.
TIE_TOLERANCE = 1e-6

Rows = npt.NDArray[np.int64]


def _tied_at_the_edge(
    candidates: npt.NDArray[np.float32],
    query: npt.NDArray[np.float32],
    hits: list[tuple[int, float]],
    k: int,
    *,
    complete: bool,
) -> bool:
    """Whether the worst candidate ties the k-th hit, so rows tied with it may be missing.

    The exact tie-break (ascending id) needs every tied row; the graph's list
    may have stopped in the middle of a tie, so such a search is redone exactly.
    """
    if complete or len(hits) < k:
        return False
    worst = float(np.min((1.0 + candidates @ query) / 2.0))
    return worst >= hits[-1][1] - TIE_TOLERANCE


@dataclass(frozen=True)
class _Graph:
    source: _Matrix  # the exact store's snapshot the graph was built from
    index: faiss.IndexHNSWFlat


class ApproximateVectorStore(InMemoryVectorStore):
    """`InMemoryVectorStore` whose large tenants are searched through an HNSW graph.

    - A tenant of fewer than `exact_below` vectors is searched exactly, match
      for match as `InMemoryVectorStore` does.
    - Above it the tenant's graph (faiss HNSW, built on one thread on the
      first search after a write, so the same writes give the same graph and
      the same answers) proposes `k * OVERFETCH` candidates, which are ranked
      by exact cosine with the exact store's tie-break and `min_score`.
      Recall is below 1 (ADR 0191 states it).
    - `entity_types` applies before `k`, inside the graph walk (a bitmap of
      the rows it keeps). When it keeps fewer than `exact_below` rows, or the
      walk finds fewer than `k` of them, those rows are searched exactly;
      so is a search whose worst candidate ties the k-th match (rows tied
      with it may lie beyond the candidates, and ties break by id).
    - Each tenant has its own graph; no search reads another tenant's.
    """

    def __init__(
        self,
        *,
        dimension: int,
        exact_below: int = EXACT_BELOW,
        expansion_search: int = EXPANSION_SEARCH,
    ) -> None:
        super().__init__(dimension=dimension)
        if isinstance(exact_below, bool) or not isinstance(exact_below, int) or exact_below < 0:
            raise InvalidArgumentError(
                name="exact_below", value=exact_below, requirement="an int of 0 or more"
            )
        if (
            isinstance(expansion_search, bool)
            or not isinstance(expansion_search, int)
            or expansion_search < 1
        ):
            raise InvalidArgumentError(
                name="expansion_search", value=expansion_search, requirement="an int of 1 or more"
            )
        self._exact_below = exact_below
        self._expansion_search = expansion_search
        self._graphs: dict[TenantId, _Graph] = {}

    @property
    def exact_below(self) -> int:
        """Tenants (and filtered row sets) smaller than this are searched exactly."""
        return self._exact_below

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        await super().purge_tenant(tenant_id)
        self._graphs.pop(tenant_id, None)

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
        """Row numbers of the graph's `fetch` nearest rows to `query` that `eligible` keeps."""
        kept = len(matrix.ids) if eligible is None else int(eligible.sum())
        graph = self._graphs.get(tenant_id)
        if graph is None or graph.source is not matrix:
            index = faiss.IndexHNSWFlat(self.dimension, CONNECTIVITY, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = EXPANSION_ADD
            threads = faiss.omp_get_max_threads()
            faiss.omp_set_num_threads(1)  # one thread: the same rows give the same graph
            try:
                index.add(matrix.rows)
            finally:
                faiss.omp_set_num_threads(threads)
            graph = _Graph(source=matrix, index=index)
            self._graphs[tenant_id] = graph
        bitmap = None
        params = faiss.SearchParametersHNSW()  # type: ignore[attr-defined]  # not in the stubs
        params.efSearch = max(self._expansion_search, fetch)
        if eligible is not None:  # the filter applies inside the graph walk, before `k`
            # a walk through rows the filter drops needs a longer candidate list
            params.efSearch = min(eligible.size, params.efSearch * eligible.size // kept)
            bitmap = np.packbits(eligible, bitorder="little")
            params.sel = faiss.IDSelectorBitmap(eligible.size, faiss.swig_ptr(bitmap))
        _, found = graph.index.search(query[None, :], fetch, params=params)
        rows = found[0]
        return np.asarray(rows[rows >= 0], dtype=np.int64)
