"""A complete vector store held in process memory, searched exactly with numpy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from redstring.domain.exact_search import (
    FloatMatrix,
    stored_vectors,
    top_k,
    unit_rows,
    unit_vector,
    validate_search_args,
)
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.validation import require_tenant_id
from redstring.domain.vector import VectorMatch, VectorRecord
from redstring.storage.describe import DescribedStore


@dataclass(frozen=True)
class _Matrix:
    ids: list[EntityId]
    id_strings: list[str]
    types: list[str]
    normalized_types: npt.NDArray[np.str_]
    rows: FloatMatrix


@dataclass
class _Tenant:
    #: entity id -> (entity type, the vector as given, as float32)
    records: dict[EntityId, tuple[str, FloatMatrix]] = field(default_factory=dict)
    cache: _Matrix | None = None


class InMemoryVectorStore(DescribedStore):
    """A `VectorStore` for a single process: exact cosine per tenant.

    Vectors are kept as float32 arrays (as SQLite keeps them: `get` returns
    them rounded to float32) and each tenant's rows are stacked and scaled to
    unit length into one matrix on the first search after a write, so a
    search is one matrix-vector product.
    """

    def __init__(self, *, dimension: int) -> None:
        if dimension <= 0:
            raise ValueError(f"dimension must be positive, got {dimension}")
        self._dimension = dimension
        self._tenants: dict[TenantId, _Tenant] = {}

    @property
    def dimension(self) -> int:
        return self._dimension

    async def upsert(self, records: Sequence[VectorRecord]) -> None:
        arrays = stored_vectors(
            [record.vector for record in records],
            dimension=self._dimension,
            context_of=lambda i: f"vector of entity {records[i].entity_id}",
        )
        for record, array in zip(records, arrays, strict=True):
            part = self._tenants.setdefault(record.tenant_id, _Tenant())
            part.records[record.entity_id] = (record.entity_type, array)
            part.cache = None

    async def delete(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        if part is None:
            return
        for entity_id in entity_ids:
            if part.records.pop(entity_id, None) is not None:
                part.cache = None

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
            )
            for entity_id in dict.fromkeys(entity_ids)
            if (held := part.records.get(entity_id)) is not None
        ]

    async def count(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)
        part = self._tenants.get(tenant_id)
        return 0 if part is None else len(part.records)

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
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        part = self._tenants.get(tenant_id)
        if part is None or k == 0:
            return []
        matrix = self._matrix(part)
        eligible = None
        if entity_types is not None:
            wanted = [normalize_name(t) for t in entity_types]
            eligible = np.isin(matrix.normalized_types, wanted)
        hits = top_k(
            matrix.rows, query, matrix.id_strings, k=k, eligible=eligible, min_score=min_score
        )
        return [
            VectorMatch(entity_id=matrix.ids[row], entity_type=matrix.types[row], score=score)
            for row, score in hits
        ]

    @staticmethod
    def _matrix(part: _Tenant) -> _Matrix:
        if part.cache is None:
            ids = list(part.records)
            types = [part.records[entity_id][0] for entity_id in ids]
            rows = (
                unit_rows(np.stack([part.records[entity_id][1] for entity_id in ids]))
                if ids
                else np.zeros((0, 1), dtype=np.float32)
            )
            part.cache = _Matrix(
                ids=ids,
                id_strings=[str(entity_id) for entity_id in ids],
                types=types,
                normalized_types=np.array([normalize_name(t) for t in types], dtype=np.str_),
                rows=rows,
            )
        return part.cache
