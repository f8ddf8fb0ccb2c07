"""`Entity`, `Relationship` and `StoredChunk` built by hand refuse a bad field with the
library's `InvalidArgumentError` naming it; a stored row read back still raises pydantic's
error, which the stores report as damage."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest
from pydantic import BaseModel, ValidationError

from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Entity, Relationship
from redstring.errors import InvalidArgumentError, RedstringError

TENANT = UUID(int=7)
ENTITY = {"tenant_id": TENANT, "entity_type": "person", "name": "Ada Lovelace"}
EDGE = {
    "tenant_id": TENANT,
    "source_id": UUID(int=1),
    "target_id": UUID(int=2),
    "relationship_type": "wrote",
}
CHUNK = {"tenant_id": TENANT, "source_id": "a.md", "text": "Ada.", "index": 0, "start": 0, "end": 4}


@pytest.mark.parametrize(
    ("model", "fields", "name", "says"),
    [
        (Entity, {**ENTITY, "name": " "}, "Entity.name", "must not be blank"),
        (Entity, {**ENTITY, "entity_type": ""}, "Entity.entity_type", "must not be blank"),
        (Entity, {**ENTITY, "confidence": 2.0}, "Entity.confidence", "less than or equal to 1"),
        (Entity, {**ENTITY, "tenant_id": "acme"}, "Entity.tenant_id", "valid UUID"),
        (Entity, {**ENTITY, "aliases": "Ada"}, "Entity.aliases", "valid list"),
        (
            Relationship,
            {**EDGE, "relationship_type": ""},
            "Relationship.relationship_type",
            "blank",
        ),
        (Relationship, {**EDGE, "target_id": None}, "Relationship.target_id", "UUID"),
        (StoredChunk, {**CHUNK, "index": -1}, "StoredChunk.index", "greater than or equal to 0"),
        (
            StoredChunk,
            {**CHUNK, "start": 3, "end": 1},
            "StoredChunk.end",
            "before the chunk's start 3",
        ),
        (
            StoredChunk,
            {k: v for k, v in CHUNK.items() if k != "text"},
            "StoredChunk.text",
            "required",
        ),
    ],
)
def test_a_refused_field_is_an_invalid_argument_naming_it(
    model: Callable[..., BaseModel], fields: dict[str, Any], name: str, says: str
) -> None:
    with pytest.raises(InvalidArgumentError, match=says) as raised:
        model(**fields)
    assert raised.value.name == name
    assert str(raised.value).startswith(name)
    assert isinstance(raised.value, RedstringError)
    assert not isinstance(raised.value, ValidationError)


@pytest.mark.parametrize(
    ("model", "row"),
    [
        (Entity, {**ENTITY, "tenant_id": str(TENANT), "name": ""}),
        (Relationship, {**EDGE, "tenant_id": str(TENANT), "source_id": "x"}),
        (StoredChunk, {**CHUNK, "tenant_id": str(TENANT), "start": 3, "end": 1}),
    ],
)
def test_a_stored_row_read_back_still_raises_pydantic_s_error(
    model: type[BaseModel], row: dict[str, Any]
) -> None:
    """The stores read rows with `model_validate_json` and report its error as damage."""
    with pytest.raises(ValidationError):
        model.model_validate_json(
            json.dumps({k: str(v) if isinstance(v, UUID) else v for k, v in row.items()})
        )


def test_valid_models_are_built_as_before() -> None:
    entity = Entity(**ENTITY)
    assert Entity.model_validate_json(entity.model_dump_json()) == entity
    edge = Relationship(**EDGE)
    assert Relationship.model_validate(edge.model_dump()) == edge
    chunk = StoredChunk(**CHUNK)
    assert chunk.model_copy(update={"index": 1}).index == 1
    assert StoredChunk(**{**CHUNK, "start": 4, "end": 4}).end == 4


@pytest.mark.parametrize(
    ("model", "fields", "typo", "meant"),
    [
        (Entity, ENTITY, "confidense", "confidence"),
        (Relationship, EDGE, "descripton", "description"),
        (StoredChunk, CHUNK, "metadta", "metadata"),
    ],
)
def test_an_unknown_keyword_or_a_positional_field_is_refused(
    model: Callable[..., BaseModel], fields: dict[str, Any], typo: str, meant: str
) -> None:
    name = model.__name__  # type: ignore[attr-defined]
    with pytest.raises(InvalidArgumentError, match=f"did you mean {meant}=") as raised:
        model(**fields, **{typo: 0.5})
    assert raised.value.name == f"{name}.{typo}"
    with pytest.raises(InvalidArgumentError, match="by name"):
        model(*fields.values())


@pytest.mark.parametrize(
    ("model", "fields"), [(Entity, ENTITY), (Relationship, EDGE), (StoredChunk, CHUNK)]
)
def test_a_stored_row_with_a_key_it_does_not_know_is_still_read(
    model: type[BaseModel], fields: dict[str, Any]
) -> None:
    """Rows read back (`model_validate`) keep ignoring keys a later version may add."""
    row = {k: str(v) if isinstance(v, UUID) else v for k, v in fields.items()}
    assert model.model_validate_json(json.dumps({**row, "added_later": 1})) == model(**fields)
