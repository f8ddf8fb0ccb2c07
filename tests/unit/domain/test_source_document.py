"""`SourceDocument` refuses a bad field with the library's `InvalidArgumentError`, naming it."""

from __future__ import annotations

from typing import Any

import pytest

from redstring import SourceDocument
from redstring.errors import InvalidArgumentError


@pytest.mark.parametrize(
    ("fields", "name", "says"),
    [
        ({"id": "", "text": "x"}, "SourceDocument.id", "must not be blank; use a path, URL or key"),
        ({"id": " \t", "text": "x"}, "SourceDocument.id", "must not be blank"),
        ({"id": 5, "text": "x"}, "SourceDocument.id", "should be a valid string"),
        ({"id": "a", "text": None}, "SourceDocument.text", "should be a valid string"),
        ({"id": "a"}, "SourceDocument.text", "is required"),
        ({"id": "a", "text": "x", "metadata": {"k": {1}}}, "SourceDocument.metadata.k", "JSON"),
    ],
)
def test_a_refused_field_is_an_invalid_argument_naming_it(
    fields: dict[str, Any], name: str, says: str
) -> None:
    with pytest.raises(InvalidArgumentError, match=says) as raised:
        SourceDocument(**fields)
    assert raised.value.name == name
    assert str(raised.value).startswith(name)


def test_a_long_refused_value_is_shown_shortened() -> None:
    with pytest.raises(InvalidArgumentError) as raised:
        SourceDocument(id="a", text=["x"] * 10_000)  # type: ignore[arg-type]
    assert len(str(raised.value)) < 200


def test_a_valid_document_and_a_copy_are_built_as_before() -> None:
    document = SourceDocument(id="a.md", text="Ada.", metadata={"path": "a.md"})
    assert document.model_copy(update={"text": ""}).text == ""
    assert SourceDocument.model_validate(document.model_dump()) == document
