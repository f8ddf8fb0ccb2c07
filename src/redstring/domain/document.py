"""Source documents: the text the graph and the chunk corpus are built from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, JsonValue, ValidationError, field_validator

from redstring.domain.model_errors import invalid_field


class SourceDocument(BaseModel):
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

    if not TYPE_CHECKING:  # the checker keeps the fields' signature

        def __init__(self, **data: Any) -> None:
            try:
                super().__init__(**data)
            except ValidationError as error:
                raise invalid_field(type(self).__name__, error) from None

    @field_validator("id")
    @classmethod
    def _id_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("it must not be blank; use a path, URL or key")
        return value
