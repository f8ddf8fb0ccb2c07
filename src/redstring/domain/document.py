"""Source documents: the text the graph and the chunk corpus are built from."""

from __future__ import annotations

import unicodedata

from pydantic import Field, JsonValue, StrictStr, field_validator

from redstring.domain.model_errors import CheckedModel


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
    def _id_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("it must not be blank; use a path, URL or key")
        held = control_character(value)
        if held is not None:
            raise ValueError(
                f"it holds the control character {held!r}; use a path, URL or key "
                "without newlines, tabs or other control characters"
            )
        return value


def control_character(text: str) -> str | None:
    """The first control character (C0, DEL or C1: a newline, a tab, NUL) in `text`, or None.

    A document id holding one would break every line-oriented listing of ids.
    """
    for character in text:
        if unicodedata.category(character) == "Cc":
            return character
    return None
