"""Source documents: the text the graph and the chunk corpus are built from."""

from __future__ import annotations

from pydantic import BaseModel, Field, JsonValue, field_validator


class SourceDocument(BaseModel):
    """One document to index or extract from.

    `id` is the caller's stable identifier for the source (a path, a URL, a
    database key); re-submitting the same id with the same text is a no-op
    for every writer. `metadata` is free-form JSON carried onto its chunks.
    """

    id: str
    text: str
    title: str = ""
    metadata: dict[str, JsonValue] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _id_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("SourceDocument.id must not be blank; use a path, URL or key")
        return value
