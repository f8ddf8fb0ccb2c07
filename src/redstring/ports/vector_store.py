"""Storing entity vectors and searching them, per tenant.

Scores are on the `VectorMatch` scale (cosine mapped onto 0..1). Search is
exact. `entity_types` filters *before* `k` is applied: filtering after
truncation looks right and silently returns fewer matches than exist.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol, runtime_checkable

from redstring.domain.ids import EntityId, TenantId
from redstring.domain.vector import VectorMatch, VectorRecord


@runtime_checkable
class VectorWriter(Protocol):
    """Writes and deletes vectors."""

    @property
    def dimension(self) -> int:
        """The length every stored vector must have."""
        ...

    async def upsert(self, records: Sequence[VectorRecord]) -> None:
        """Insert or replace each record, keyed by (tenant, entity id).

        The batch is atomic: a record of the wrong length raises
        `DimensionMismatchError` and nothing of the batch is written.
        """
        ...

    async def delete(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        """Remove these entities' vectors from `tenant_id`; missing ids are ignored."""
        ...


@runtime_checkable
class VectorSearcher(Protocol):
    """Exact nearest-neighbour search within one tenant."""

    @property
    def dimension(self) -> int:
        """The length a query vector must have."""
        ...

    async def search(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        entity_types: Sequence[str] | None = None,
        min_score: float | None = None,
    ) -> list[VectorMatch]:
        """The `k` best matches in `tenant_id`, best first.

        `entity_types=None` means no filter and `[]` matches nothing; the filter
        and `min_score` apply before `k`. `k == 0` returns `[]`; `k < 0` raises
        `ValueError`; a wrong-length vector raises `DimensionMismatchError`.
        Ties break by ascending entity id string, so the order is total.
        """
        ...


@runtime_checkable
class VectorPurge(Protocol):
    """Removes everything of one tenant."""

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        """Delete every vector of `tenant_id`; other tenants are untouched."""
        ...


@runtime_checkable
class VectorModels(Protocol):
    """Which embedding models made a tenant's entity vectors (`VectorRecord.model`).

    A capability of its own, so a vector store written before it still reads
    and writes as a `VectorWriter` and `VectorSearcher`; the client does not
    refuse its searches (it cannot tell which model made the vectors).
    """

    async def embedding_models(self, tenant_id: TenantId) -> dict[str | None, int]:
        """How many vectors of `tenant_id` each embedding model made (`None`: a vector
        naming none). An unknown tenant gives `{}`."""
        ...

    async def embeds_with(self, tenant_id: TenantId, models: Collection[str | None]) -> bool:
        """Whether some vector of `tenant_id` names one of `models` (`None`: a vector naming
        none). An index read that stops at the first such vector: never a count."""
        ...


@runtime_checkable
class VectorStore(VectorWriter, VectorSearcher, VectorPurge, VectorModels, Protocol):
    """All vector-store capabilities together."""

    async def get(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> list[VectorRecord]:
        """Stored records of these ids in `tenant_id`; missing ids omitted, order unspecified."""
        ...

    async def count(self, tenant_id: TenantId) -> int:
        """How many vectors `tenant_id` holds."""
        ...
