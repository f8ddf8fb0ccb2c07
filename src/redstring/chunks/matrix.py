"""A tenant's embedded chunks as one matrix of unit rows, searched exactly.

Shared by the two numpy-backed chunk stores (in memory, SQLite).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from redstring.domain.chunk import ChunkId
from redstring.domain.exact_search import FloatMatrix, ProductMemo, ranks_of, scores_of, top_k


@dataclass(frozen=True)
class ChunkMatrix:
    """A tenant's embedded chunks: their ids, sources and unit rows, in one order.

    Never changed in place (a write builds another), so it keeps the product
    of its last query for the ranks a hybrid query asks next.
    """

    ids: list[ChunkId]
    sources: npt.NDArray[np.str_]
    rows: FloatMatrix
    memo: ProductMemo = field(default_factory=ProductMemo, compare=False)

    @functools.cached_property
    def row_of(self) -> dict[ChunkId, int]:
        """Each chunk id's row, built on the first lookup."""
        return {chunk_id: row for row, chunk_id in enumerate(self.ids)}

    def ranking(
        self, query: FloatMatrix, *, k: int, source_ids: Sequence[str] | None
    ) -> list[tuple[ChunkId, float]]:
        """The `k` best chunks (of `source_ids`' sources, if given) by exact cosine."""
        eligible = self._eligible(source_ids)
        hits = top_k(
            self.rows, query, self.ids, k=k, eligible=eligible, min_score=None, memo=self.memo
        )
        return [(self.ids[row], score) for row, score in hits]

    def ranks(
        self, query: FloatMatrix, chunk_ids: Sequence[ChunkId], *, source_ids: Sequence[str] | None
    ) -> dict[ChunkId, tuple[int, float]]:
        """Each of `chunk_ids`' place and score in the whole `ranking`; none for one it lacks."""
        asked = [c for c in dict.fromkeys(chunk_ids) if c in self.row_of]
        found = ranks_of(
            self.rows,
            query,
            self.ids,
            wanted=[self.row_of[c] for c in asked],
            eligible=self._eligible(source_ids),
            memo=self.memo,
        )
        return {c: place for c, place in zip(asked, found, strict=True) if place is not None}

    def scores(
        self, query: FloatMatrix, chunk_ids: Sequence[ChunkId], *, source_ids: Sequence[str] | None
    ) -> dict[ChunkId, float]:
        """Each of `chunk_ids`' score in `ranking`, no place counted; none for one it lacks."""
        asked = [c for c in dict.fromkeys(chunk_ids) if c in self.row_of]
        found = scores_of(
            self.rows,
            query,
            wanted=[self.row_of[c] for c in asked],
            eligible=self._eligible(source_ids),
        )
        return {c: score for c, score in zip(asked, found, strict=True) if score is not None}

    def _eligible(self, source_ids: Sequence[str] | None) -> npt.NDArray[np.bool_] | None:
        if source_ids is None:
            return None
        return np.isin(self.sources, np.array(list(source_ids), dtype=np.str_))
