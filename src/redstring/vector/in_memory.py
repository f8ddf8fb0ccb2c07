"""A complete vector store held in process memory, searched exactly with numpy."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.exact_search import (
    FloatMatrix,
    stored_vectors,
    unit_rows,
    unit_vector,
    validate_search_args,
)
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.validation import require_tenant_id
from redstring.domain.vector import VectorMatch, VectorRecord
from redstring.storage.describe import DescribedStore
from redstring.vector.rows import ExactSearch, RowSearch, TenantRows


@dataclass
class _Tenant:
    rows: TenantRows
    #: entity id -> (entity type, the vector as given, as float32, the model that made it)
    records: dict[EntityId, tuple[str, FloatMatrix, str | None]] = field(default_factory=dict)
    #: how many of `records` each model made, kept by every write (a model made none: absent)
    models: Counter[str | None] = field(default_factory=Counter)


class InMemoryVectorStore(DescribedStore):
    """A `VectorStore` for a single process: exact cosine per tenant.

    Vectors are kept as float32 arrays (as SQLite keeps them: `get` returns
    them rounded to float32), and scaled to unit length into the tenant's
    rows as they are written, so a search is one matrix-vector
    product.
    """

    def __init__(self, *, dimension: int) -> None:
        if dimension <= 0:
            raise InvalidArgumentError(
                name="dimension",
                value=dimension,
                requirement="a positive whole number",
                message=f"dimension must be positive, got {dimension}",
            )
        self._dimension = dimension
        self._tenants: dict[TenantId, _Tenant] = {}
        self._search: RowSearch = ExactSearch()

    @property
    def dimension(self) -> int:
        return self._dimension

    async def upsert(self, records: Sequence[VectorRecord]) -> None:
        arrays = stored_vectors(
            [record.vector for record in records],
            dimension=self._dimension,
            context_of=lambda i: f"vector of entity {records[i].entity_id}",
        )
        by_tenant: dict[TenantId, list[int]] = {}
        for at, record in enumerate(records):
            by_tenant.setdefault(record.tenant_id, []).append(at)
        for tenant_id, ats in by_tenant.items():
            part = self._tenants.setdefault(tenant_id, _Tenant(TenantRows(self._dimension)))
            for at in ats:
                given = records[at]
                _forget(part, part.records.get(given.entity_id))
                part.records[given.entity_id] = (given.entity_type, arrays[at], given.model)
                part.models[given.model] += 1
            types = [records[at].entity_type for at in ats]
            part.rows.put(
                [str(records[at].entity_id) for at in ats],
                types,
                [normalize_name(kind) for kind in types],
                unit_rows(np.stack([arrays[at] for at in ats])),
            )

    async def delete(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        if part is None:
            return
        for entity_id in entity_ids:
            _forget(part, part.records.pop(entity_id, None))
        part.rows.remove(str(entity_id) for entity_id in entity_ids)

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        self._tenants.pop(tenant_id, None)

    async def get(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> list[VectorRecord]:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        if part is None:
            return []
        return [
            VectorRecord(
                tenant_id=tenant_id,
                entity_id=entity_id,
                entity_type=held[0],
                vector=held[1].tolist(),
                model=held[2],
            )
            for entity_id in dict.fromkeys(entity_ids)
            if (held := part.records.get(entity_id)) is not None
        ]

    async def count(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        return 0 if part is None else len(part.records)

    async def embedding_models(self, tenant_id: TenantId) -> dict[str | None, int]:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        return {} if part is None else dict(part.models)

    async def embeds_with(self, tenant_id: TenantId, models: Collection[str | None]) -> bool:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        return part is not None and any(part.models[model] > 0 for model in set(models))

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
        k, min_score = validate_search_args(k, min_score)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        part = self._tenants.get(tenant_id)
        if part is None or k == 0:
            return []
        wanted = None if entity_types is None else [normalize_name(t) for t in entity_types]
        rows = part.rows
        hits = self._search.search(rows, query, k=k, wanted=wanted, min_score=min_score)
        return [
            VectorMatch(
                entity_id=EntityId(uuid.UUID(rows.ids[slot])),
                entity_type=rows.types[slot],
                score=score,
            )
            for slot, score in hits
        ]


def _forget(part: _Tenant, held: tuple[str, FloatMatrix, str | None] | None) -> None:
    """Take a record overwritten or removed out of its model's count."""
    if held is None:
        return
    part.models[held[2]] -= 1
    if part.models[held[2]] <= 0:
        del part.models[held[2]]
