"""Approximate search over a tenant's rows through a faiss IVF index kept in step with writes.

Needs the `ann` extra (faiss-cpu). Shared by `ApproximateVectorStore` and
`SqliteVectorStore(search_mode="ivf")`. ADR 0225 chose the inverted-file
index (seeded k-means lists, rows kept in full); ADR 0265 keeps it up to date
in place: written rows are added to their nearest trained list and removed
rows taken out by slot, and the lists are trained again only once more than
`RETRAIN_SHARE` of the rows trained on have changed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import faiss
import numpy as np
import numpy.typing as npt

from redstring.domain.exact_search import FloatMatrix, top_k
from redstring.vector.ivf_settings import EXACT_BELOW, PROBES, check_ivf_settings
from redstring.vector.rows import FREE, Hits, Slots, TenantRows

#: Candidates asked of the index, as a multiple of `k`, ranked exactly after.
OVERFETCH = 2
#: Rows per list the index aims at: lists = sqrt(rows), at least this many
#: training rows each (faiss warns below 39).
MIN_ROWS_PER_LIST = 39
#: k-means iterations of the training, on faiss's seeded sample of at most
#: 256 rows per list.
TRAINING_ITERATIONS = 10
#: Rows written or removed since training, as a share of the rows trained on,
#: past which the next search trains the lists again (ADR 0265).
RETRAIN_SHARE = 0.25
#: A candidate this close below the k-th score counts as tied with it.
TIE_TOLERANCE = 1e-6
#: Bytes per row of faiss's id-to-list hash map, estimated for the cache budget.
DIRECT_MAP_BYTES = 48


def lists_for(rows: int) -> int:
    """How many lists an index over `rows` rows has: about sqrt(rows), at least one."""
    return max(1, min(round(math.sqrt(rows)), rows // MIN_ROWS_PER_LIST))


class IvfIndex:
    """An `IndexIVFFlat` over a `TenantRows`' held slots (the slot is the faiss id).

    Trained from a seeded sample, so the same rows give the same index; then
    told of each write (`put`, `drop`) and counting the rows changed since.
    """

    def __init__(self, part: TenantRows) -> None:
        held = np.flatnonzero(part.codes != FREE).astype(np.int64)
        dimension = part.rows.shape[1]
        lists = lists_for(held.size)
        self._index = faiss.IndexIVFFlat(
            faiss.IndexFlatIP(dimension), dimension, lists, faiss.METRIC_INNER_PRODUCT
        )
        self._index.cp.niter = TRAINING_ITERATIONS
        self._index.cp.seed = 1234  # faiss's default, stated: the sample and the start are seeded
        # Removal by id looks each id up (faiss's stubs lack `DirectMap`).
        self._index.set_direct_map_type(faiss.DirectMap.Hashtable)  # type: ignore[attr-defined]
        rows = part.rows[held]
        self._index.train(rows)
        self._index.add_with_ids(rows, held)
        self.trained = int(held.size)
        self.changed = 0

    @property
    def stale(self) -> bool:
        """Whether more than `RETRAIN_SHARE` of the rows trained on have changed since."""
        return self.changed > RETRAIN_SHARE * self.trained

    @property
    def nbytes(self) -> int:
        dimension = self._index.d
        per_row = 4 * dimension + 8 + DIRECT_MAP_BYTES
        return int(self._index.ntotal) * per_row + int(self._index.nlist) * 4 * dimension

    def put(self, slots: Slots, rows: FloatMatrix, replaced: Slots) -> None:
        if replaced.size:
            self._remove(replaced)
        self._index.add_with_ids(np.ascontiguousarray(rows), slots)
        self.changed += int(slots.size)

    def drop(self, slots: Slots) -> None:
        self._remove(slots)
        self.changed += int(slots.size)

    def _remove(self, slots: Slots) -> None:
        ids = np.ascontiguousarray(slots, dtype=np.int64)
        self._index.remove_ids(faiss.IDSelectorArray(ids.size, faiss.swig_ptr(ids)))

    def nearest(
        self,
        query: FloatMatrix,
        fetch: int,
        eligible: npt.NDArray[np.bool_] | None,
        probes: int,
    ) -> Slots:
        """Slots of the `fetch` nearest rows to `query` in the `probes` nearest lists.

        Only `eligible` slots are scanned when it is given (a bitmap inside
        the scan, so the filter applies before `fetch`).
        """
        params = faiss.SearchParametersIVF()
        params.nprobe = probes
        bitmap = None
        if eligible is not None:
            bitmap = np.packbits(eligible, bitorder="little")
            params.sel = faiss.IDSelectorBitmap(bitmap.size, faiss.swig_ptr(bitmap))
        _, found = self._index.search(query[None, :], fetch, params=params)
        slots = found[0]
        return np.asarray(slots[slots >= 0], dtype=np.int64)


def _tied_at_the_edge(
    candidates: FloatMatrix, query: FloatMatrix, hits: Hits, k: int, *, complete: bool
) -> bool:
    """Whether the worst candidate ties the k-th hit, so rows tied with it may be missing.

    The exact tie-break (ascending id) needs every tied row; the index's list
    may have stopped in the middle of a tie, so such a search is redone exactly.
    """
    if complete or len(hits) < k:
        return False
    worst = float(np.min((1.0 + candidates @ query) / 2.0))
    return worst >= hits[-1][1] - TIE_TOLERANCE


class IvfSearch:
    """A tenant's rows searched through its `IvfIndex` once enough rows are kept.

    - Fewer than `exact_below` rows kept (by the tenant, or by its type
      filter): searched exactly, match for match as the exact stores do.
    - Otherwise the tenant's index (trained on the first such search, and
      again on the first after more than `RETRAIN_SHARE` of its rows changed)
      scans the `probes` lists nearest the query for `k * OVERFETCH`
      candidates of the kept types (a bitmap inside the scan, before `k`),
      which are ranked by exact cosine with the exact tie-break and
      `min_score`. When the scan finds fewer than `min(k, kept)` rows, or its
      worst candidate ties the k-th match, the kept rows are searched exactly.
    """

    def __init__(self, *, exact_below: int = EXACT_BELOW, probes: int = PROBES) -> None:
        check_ivf_settings(exact_below, probes)
        self.exact_below = exact_below
        self.probes = probes

    def search(
        self,
        part: TenantRows,
        query: FloatMatrix,
        *,
        k: int,
        wanted: Sequence[str] | None,
        min_score: float | None,
    ) -> Hits:
        eligible = part.eligible(wanted)
        kept = part.live if eligible is None or wanted is None else int(eligible.sum())
        if kept >= self.exact_below and kept > 0 and k > 0:
            index = part.index
            if not isinstance(index, IvfIndex) or index.stale:
                index = IvfIndex(part)
                part.index = index
            filtered = None if wanted is None else eligible  # freed slots are not in the index
            slots = index.nearest(query, min(kept, k * OVERFETCH), filtered, self.probes)
            if slots.size >= min(k, kept):
                candidates = part.rows[slots]
                hits = top_k(
                    candidates,
                    query,
                    [part.ids[slot] for slot in slots.tolist()],
                    k=k,
                    eligible=None,
                    min_score=min_score,
                )
                if not _tied_at_the_edge(candidates, query, hits, k, complete=slots.size == kept):
                    chosen = slots.tolist()
                    return [(chosen[at], score) for at, score in hits]
        return part.search_exactly(query, k=k, eligible=eligible, min_score=min_score)
