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
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class SavedLists:
    """A trained index as saved: its centres, and the list of each held slot."""

    training: str
    trained: int
    changed: int
    centres: FloatMatrix
    slots: Slots
    lists: Slots


def _empty(quantizer: faiss.IndexFlatIP, lists: int) -> faiss.IndexIVFFlat:
    index = faiss.IndexIVFFlat(quantizer, quantizer.d, lists, faiss.METRIC_INNER_PRODUCT)
    # Removal by id looks each id up (faiss's stubs lack `DirectMap`).
    index.set_direct_map_type(faiss.DirectMap.Hashtable)  # type: ignore[attr-defined]
    return index


class IvfIndex:
    """An `IndexIVFFlat` over a `TenantRows`' held slots (the slot is the faiss id).

    `train` builds it from a seeded sample, so the same rows give the same
    index; `restore` rebuilds a saved one (its centres and each row's list)
    without training. Then told of each write (`put`, `drop`) and counting
    the rows changed since training. `training` names the training: a saved
    copy of the same training has the same centres.
    """

    def __init__(self, index: faiss.IndexIVFFlat, *, training: str, trained: int, changed: int):
        self._index = index
        self.training = training
        self.trained = trained
        self.changed = changed

    @classmethod
    def train(cls, part: TenantRows) -> IvfIndex:
        """An index trained on the part's held rows, which it then holds."""
        held = np.flatnonzero(part.codes != FREE).astype(np.int64)
        index = _empty(faiss.IndexFlatIP(part.rows.shape[1]), lists_for(held.size))
        index.cp.niter = TRAINING_ITERATIONS
        index.cp.seed = 1234  # faiss's default, stated: the sample and the start are seeded
        rows = part.rows[held]
        index.train(rows)
        index.add_with_ids(rows, held)
        return cls(index, training=uuid.uuid4().hex, trained=int(held.size), changed=0)

    @classmethod
    def restore(cls, part: TenantRows, saved: SavedLists) -> IvfIndex:
        """The saved index over the part's held rows, each put in its saved list.

        `saved.slots` must be every held slot once.
        """
        centres = np.ascontiguousarray(saved.centres, dtype=np.float32)
        quantizer = faiss.IndexFlatIP(centres.shape[1])
        quantizer.add(centres)
        index = _empty(quantizer, centres.shape[0])
        slots = np.ascontiguousarray(saved.slots, dtype=np.int64)
        lists = np.ascontiguousarray(saved.lists, dtype=np.int64)
        rows = np.ascontiguousarray(part.rows[slots])
        index.add_core(
            int(slots.size), faiss.swig_ptr(rows), faiss.swig_ptr(slots), faiss.swig_ptr(lists)
        )
        return cls(index, training=saved.training, trained=saved.trained, changed=saved.changed)

    @property
    def centres(self) -> FloatMatrix:
        """The lists' trained centres, one row each."""
        centres: FloatMatrix = self._index.quantizer.reconstruct_n(0, self._index.nlist)
        return centres

    def lists_of(self, slots: Slots) -> Slots:
        """The list each of `slots` (held by the index) is filed in."""
        direct = self._index.direct_map
        return np.asarray([direct.get(slot) >> 32 for slot in slots.tolist()], dtype=np.int64)

    def filing(self) -> tuple[Slots, Slots]:
        """Every slot the index holds and its list, list by list."""
        lists = self._index.invlists  # the index owns its lists (faiss types it optional)
        slots: list[Slots] = []
        numbers: list[Slots] = []
        for number in range(self._index.nlist):
            size = lists.list_size(number)  # type: ignore[union-attr]
            if size:
                ids = faiss.rev_swig_ptr(lists.get_ids(number), size)  # type: ignore[union-attr]
                slots.append(np.array(ids, dtype=np.int64))
                numbers.append(np.full(size, number, dtype=np.int64))
        if not slots:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(slots), np.concatenate(numbers)

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
                index = IvfIndex.train(part)
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
