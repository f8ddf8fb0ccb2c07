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


def test_bytes_are_not_taken_for_text() -> None:
    """A strict string: `b"x"` is refused, not decoded into `"x"` behind the caller's back."""
    for field in ("id", "text", "title"):
        fields: dict[str, Any] = {"id": "a", "text": "x", field: b"x"}
        with pytest.raises(InvalidArgumentError, match="valid string") as raised:
            SourceDocument(**fields)
        assert raised.value.name == f"SourceDocument.{field}"


def test_fields_given_by_position_are_refused_with_the_names_to_use() -> None:
    with pytest.raises(
        InvalidArgumentError, match=r"by name.*SourceDocument\(id=\.\.\., text=\.\.\.\)"
    ):
        SourceDocument("a", "x")  # type: ignore[misc]


def test_a_misspelt_field_is_refused_naming_it_and_the_field_meant() -> None:
    with pytest.raises(InvalidArgumentError, match="did you mean metadata=") as raised:
        SourceDocument(id="a", text="x", metadta={"k": 1})  # type: ignore[call-arg]
    assert raised.value.name == "SourceDocument.metadta"
    assert str(raised.value).startswith("SourceDocument.metadta")


@pytest.mark.parametrize("character", ["\n", "\t", "\r", "\x00", "\x1b", "\x7f", "\x85", "\x9f"])
def test_an_id_holding_a_control_character_is_refused(character: str) -> None:
    with pytest.raises(InvalidArgumentError, match="control character") as raised:
        SourceDocument(id=f"notes{character}id", text="x")
    assert raised.value.name == "SourceDocument.id"


def test_an_id_of_printable_unicode_is_kept() -> None:
    assert SourceDocument(id="notes/été ünd 東京.md", text="x").id == "notes/été ünd 東京.md"


@pytest.mark.parametrize("bad", ["a\nb", "evil\x1b[31mRED", "   ", ""])
def test_a_chunks_source_id_is_held_to_the_document_id_rule(bad: str) -> None:
    from redstring.domain.chunk import StoredChunk  # noqa: PLC0415 (the one test of chunks here)
    from redstring.domain.ids import new_tenant_id  # noqa: PLC0415

    tenant = new_tenant_id()
    with pytest.raises(InvalidArgumentError) as raised:
        StoredChunk(tenant_id=tenant, source_id=bad, text="x", index=0, start=0, end=1)
    assert raised.value.name == "StoredChunk.source_id"
    assert str(raised.value).startswith("StoredChunk.source_id=")
    # A row stored before the rule still reads back, under the chunk id it always had.
    row = {"tenant_id": tenant, "source_id": bad, "text": "x", "index": 0, "start": 0, "end": 1}
    assert StoredChunk.model_validate(row).source_id == bad
