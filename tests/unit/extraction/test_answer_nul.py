"""A model answer holding a NUL anywhere no store keeps it is refused as off-schema."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from redstring.extraction.answer import ExtractedEntity, ExtractedRelationship


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("description", "a\x00b"),
        ("properties", {"born\x00": 1815}),
        ("properties", {"works": ["Notes", "Sketch\x00"]}),
        ("properties", {"family": {"father": "Lord\x00Byron"}}),
    ],
)
def test_a_nul_in_a_description_or_anywhere_in_the_properties_is_refused(
    field: str, value: object
) -> None:
    with pytest.raises(ValidationError, match="NUL"):
        ExtractedEntity.model_validate({"name": "Ada", "type": "person", field: value})


def test_properties_without_a_nul_are_kept_as_given() -> None:
    properties = {"works": ["Notes", {"year": 1843}], "born": "1815"}
    entity = ExtractedEntity(name="Ada", type="person", properties=properties)
    assert entity.properties == properties


def test_a_nul_in_a_relationships_description_is_refused() -> None:
    with pytest.raises(ValidationError, match="NUL"):
        ExtractedRelationship(source="Ada", target="Byron", type="child_of", description="a\x00")
