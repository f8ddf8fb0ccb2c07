"""Stored passages: the pieces a document was split into.

A chunk's id is derived from its source document id and its text, never
supplied by a caller, so indexing the same document twice writes the same
chunks. Whether a chunk carries an embedding is a per-row fact.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, NewType

from pydantic import BaseModel, Field, JsonValue, ValidationInfo, field_validator, model_validator

from redstring.domain.errors import ChunkSourceMismatchError, InvalidArgumentError
from redstring.domain.ids import EntityId, TenantId, length_prefixed
from redstring.domain.model_errors import CheckedModel
from redstring.domain.validation import require_document_id, require_str

ChunkId = NewType("ChunkId", str)


def chunk_id_for(source_id: str, text: str) -> ChunkId:
    """`c:` and 32 hex digits of SHA-256 over `length_prefixed("chunk", source_id, text)`.

    Distinct `(source_id, text)` pairs hash distinct material, whatever either
    contains (the stores' schema migrations rebuild the same bytes).
    A lone surrogate in either raises `InvalidArgumentError` naming it.
    """
    try:
        material = length_prefixed("chunk", source_id, text)
    except UnicodeEncodeError:  # checked only on failure: ids are derived on every read
        require_str("source_id", source_id)
        require_str("text", text)
        raise
    digest = hashlib.sha256(material).hexdigest()
    return ChunkId("c:" + digest[:32])


class TextSpan(BaseModel):
    """A piece of a text: `text == source[start:end]`, offsets in characters."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str

    @model_validator(mode="after")
    def _consistent(self) -> TextSpan:
        if self.end - self.start != len(self.text):
            raise ValueError(
                f"span [{self.start}, {self.end}) does not have the length of its text "
                f"({len(self.text)} characters)"
            )
        return self


class StoredChunk(CheckedModel):
    """A passage of a source document, as a chunk store holds it.

    `id` is `chunk_id_for(source_id, text)` and cannot be supplied.
    `index` is the chunk's position within its source; `start` and `end` are
    character offsets into the source text. `embedding` is `None` for a row
    nobody embedded; `embedding_model` names the model that made it (the
    provider's model name; `None` when unknown, as for rows written
    before it was recorded). Its dimension is the embedding's length, which
    every store checks against its own. A field it refuses (a negative
    `index`, an `end` before `start`, a `source_id` no document could have:
    blank, or holding a control character) raises `InvalidArgumentError`
    naming it. A row read back (`model_validate`) is not held to the
    `source_id` rule, so ids stored before it still read.
    """

    tenant_id: TenantId
    source_id: str
    text: str
    index: int = Field(ge=0)
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    entity_ids: list[EntityId] = Field(default_factory=list)
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    embedding: list[float] | None = Field(default=None, repr=False)
    embedding_model: str | None = None

    if not TYPE_CHECKING:  # the checker keeps the model's own field signature

        def __init__(self, *args: Any, **data: Any) -> None:
            source_id = data.get("source_id")
            if isinstance(source_id, str):  # anything else: the field's own refusal
                require_document_id("StoredChunk.source_id", source_id)
            super().__init__(*args, **data)

        # Pydantic's own as far as a stored row goes: `model_validate` never calls it.
        __init__.__pydantic_base_init__ = True

    @property
    def id(self) -> ChunkId:
        """The derived id of this chunk."""
        return chunk_id_for(self.source_id, self.text)

    @field_validator("end")
    @classmethod
    def _end_not_before_start(cls, end: int, info: ValidationInfo) -> int:
        start = info.data.get("start")
        if start is not None and end < start:
            raise ValueError(f"it is before the chunk's start {start}")
        return end


def require_chunks_of_source(
    chunks: Sequence[StoredChunk], source_id: str, tenant_id: TenantId
) -> None:
    """Raise `ChunkSourceMismatchError` unless every chunk is of `source_id` in `tenant_id`.

    The precondition of `ChunkWriter.replace_source`, checked before anything is written.
    """
    for chunk in chunks:
        if chunk.source_id != source_id or chunk.tenant_id != tenant_id:
            raise ChunkSourceMismatchError(
                chunk_source=chunk.source_id,
                chunk_tenant=chunk.tenant_id,
                source_id=source_id,
                tenant_id=tenant_id,
            )


def kept_embeddings(
    chunks: Sequence[StoredChunk], keep_embeddings: Collection[ChunkId]
) -> frozenset[str]:
    """The id strings of `keep_embeddings`; `InvalidArgumentError` if one of `chunks` so
    named carries an embedding (a kept row's vector is the stored one, ADR 0255).

    Checked before anything is written, beside `require_chunks_of_source`.
    """
    kept = frozenset(str(chunk_id) for chunk_id in keep_embeddings)
    if not kept:
        return kept
    for position, chunk in enumerate(chunks):
        if chunk.embedding is not None and str(chunk.id) in kept:
            raise InvalidArgumentError(
                name=f"chunks[{position}].embedding",
                value="<a vector>",
                requirement="None for a chunk named in keep_embeddings (it keeps the stored "
                "vector); drop the id from keep_embeddings to write this vector instead",
            )
    return kept


def naming_model(body: str, model: str | None) -> str:
    """A chunk's JSON `body` (as `model_dump_json(exclude={"embedding"})` gives it) naming
    `model` as its embedding's model: unchanged if it names it already."""
    chunk = StoredChunk.model_validate_json(body)
    if chunk.embedding_model == model:
        return body
    return chunk.model_copy(update={"embedding_model": model}).model_dump_json(
        exclude={"embedding"}
    )


class ChunkManifest(BaseModel, frozen=True):
    """What re-indexing needs to know of a stored chunk, without its text or embedding.

    `id`, place (`index`, `start`, `end`), `metadata` and `entity_ids` as
    stored; `embedded` is whether the row holds an embedding,
    `embedding_model` the model it names.
    """

    id: ChunkId
    index: int = Field(ge=0)
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    entity_ids: list[EntityId] = Field(default_factory=list)
    embedded: bool
    embedding_model: str | None = None

    @classmethod
    def of(cls, chunk: StoredChunk, *, embedded: bool) -> ChunkManifest:
        """The manifest of `chunk`, whose row holds an embedding when `embedded`."""
        return cls(
            id=chunk.id,
            index=chunk.index,
            start=chunk.start,
            end=chunk.end,
            metadata=chunk.metadata,
            entity_ids=chunk.entity_ids,
            embedded=embedded,
            embedding_model=chunk.embedding_model,
        )
