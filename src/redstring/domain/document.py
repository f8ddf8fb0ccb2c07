"""Source documents: the text the graph and the chunk corpus are built from."""

from __future__ import annotations

from pydantic import Field, JsonValue, StrictStr, field_validator

from redstring.domain.model_errors import CheckedModel
from redstring.domain.validation import document_id_problem


class SourceDocument(CheckedModel):
    """One document to index or extract from.

    `id` is the caller's stable identifier for the source (a path, a URL, a
    database key); re-submitting the same id with the same text is a no-op
    for every writer. `metadata` is free-form JSON carried onto its chunks.
    A field it refuses (a blank `id`, a `text` that is not a string, not even
    bytes) raises `InvalidArgumentError` naming it (`SourceDocument.id`);
    fields are given by name, and a name that is no field is refused.
    """

    id: StrictStr
    text: StrictStr
    title: StrictStr = ""
    metadata: dict[str, JsonValue] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _a_document_id(cls, value: str) -> str:
        problem = document_id_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value
