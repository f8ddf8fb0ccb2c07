"""Source documents: the text the graph and the chunk corpus are built from."""

from __future__ import annotations

from pydantic import Field, JsonValue, field_validator

from redstring.domain.model_errors import CheckedModel


class SourceDocument(CheckedModel):
    """One document to index or extract from.

    `id` is the caller's stable identifier for the source (a path, a URL, a
    database key); re-submitting the same id with the same text is a no-op
    for every writer. `metadata` is free-form JSON carried onto its chunks.
    A field it refuses (a blank `id`, a `text` that is not a string) raises
    `InvalidArgumentError` naming it (`SourceDocument.id`).
    """

    id: str
    text: str
    title: str = ""
    metadata: dict[str, JsonValue] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _id_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("it must not be blank; use a path, URL or key")
        return value
