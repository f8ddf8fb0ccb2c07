"""The in-memory chunk store's rows: a chunk's fields held in one object, copied in and out.

A row keeps the chunk's values rather than a `StoredChunk`: a pydantic model
brings its `__dict__`, its fields-set and its own list and dict, each an
object the garbage collector walks on every full pass over a growing store
(ADR 0290). What a caller gave or got back is never shared with the row:
`entity_ids` is kept as a tuple of (immutable) ids and `metadata` as a deep
copy, both listed and copied again on the way out.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from pydantic import JsonValue

from redstring.domain.chunk import ChunkId, StoredChunk
from redstring.domain.exact_search import FloatMatrix
from redstring.domain.ids import EntityId, TenantId

#: The terms of a row not filed yet.
NO_TERMS: npt.NDArray[np.int32] = np.zeros(0, np.int32)


@dataclass(slots=True)
class Row:
    """A stored chunk: `unit` is its embedding's only copy (ADR 0185); `id` is derived once.

    `metadata` is `None` for an empty one; `length` is its count of terms;
    `terms` its distinct terms' numbers in the tenant's postings, set when filed.
    """

    id: ChunkId
    tenant_id: TenantId
    source_id: str
    text: str
    index: int
    start: int
    end: int
    entity_ids: tuple[EntityId, ...]
    metadata: dict[str, JsonValue] | None
    embedding_model: str | None
    length: int
    unit: FloatMatrix | None
    terms: npt.NDArray[np.int32] = field(default_factory=lambda: NO_TERMS)

    @classmethod
    def of(
        cls, chunk: StoredChunk, chunk_id: ChunkId, length: int, unit: FloatMatrix | None
    ) -> Row:
        """A row holding copies of `chunk`'s values (`chunk_id` is `chunk.id`)."""
        return cls(
            chunk_id,
            chunk.tenant_id,
            chunk.source_id,
            chunk.text,
            chunk.index,
            chunk.start,
            chunk.end,
            tuple(chunk.entity_ids),
            copy.deepcopy(chunk.metadata) if chunk.metadata else None,
            chunk.embedding_model,
            length,
            unit,
        )

    def take(self, chunk: StoredChunk) -> None:
        """Hold `chunk`'s entities, metadata and model (the same id, so the same text)."""
        self.index, self.start, self.end = chunk.index, chunk.start, chunk.end
        self.entity_ids = tuple(chunk.entity_ids)
        self.metadata = copy.deepcopy(chunk.metadata) if chunk.metadata else None
        self.embedding_model = chunk.embedding_model

    def chunk(self, *, embedded: bool = True) -> StoredChunk:
        """A fresh `StoredChunk` of this row; its embedding listed from `unit` when `embedded`."""
        return StoredChunk.model_construct(
            tenant_id=self.tenant_id,
            source_id=self.source_id,
            text=self.text,
            index=self.index,
            start=self.start,
            end=self.end,
            entity_ids=list(self.entity_ids),
            metadata=copy.deepcopy(self.metadata) if self.metadata else {},
            embedding=None if self.unit is None or not embedded else self.unit.tolist(),
            embedding_model=self.embedding_model,
        )
