"""An in-memory vector store that searches large tenants through an IVF index (ADR 0225, 0265).

Needs the `ann` extra (faiss-cpu). ADR 0191 chose faiss for its filter inside
the search; ADR 0225 replaced the HNSW graph with an inverted-file index,
whose build is about ten times cheaper and deterministic on every thread;
ADR 0265 keeps the index up to date as rows are written. The index and its
search are `redstring.vector.ivf`, shared with `SqliteVectorStore`.
"""

from __future__ import annotations

from redstring.vector.in_memory import InMemoryVectorStore
from redstring.vector.ivf import IvfSearch
from redstring.vector.ivf_settings import EXACT_BELOW, PROBES


class ApproximateVectorStore(InMemoryVectorStore):
    """`InMemoryVectorStore` whose large tenants are searched through an IVF index.

    - A tenant of fewer than `exact_below` vectors is searched exactly, match
      for match as `InMemoryVectorStore` does.
    - Above it the tenant's index (faiss `IndexIVFFlat`: about sqrt(rows)
      k-means lists trained from a seeded sample, so the same writes and
      searches, in the same order, give the same index and answers) scans
      the `probes` lists nearest the query for `2k` candidates, ranked by
      exact cosine with the exact store's tie-break and `min_score`. Recall is below 1.
    - A write updates the index in place (rows added to their nearest list,
      removed rows taken out); the lists are trained again on the first
      search after more than a quarter of the rows changed.
    - `entity_types` applies before `k`, inside the scan. When it keeps
      fewer than `exact_below` rows, or the scan finds fewer than `k` of
      them, those rows are searched exactly; so is a search whose worst
      candidate ties the k-th match (ties break by id).
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
        self._ivf = IvfSearch(exact_below=exact_below, probes=probes)
        self._search = self._ivf

    @property
    def exact_below(self) -> int:
        """Tenants (and filtered row sets) smaller than this are searched exactly."""
        return self._ivf.exact_below
