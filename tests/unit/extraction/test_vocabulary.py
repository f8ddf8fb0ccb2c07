"""Answers held to their domain's types: the schema's enums, mapping, `other`, dropping, counts."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from redstring.extraction.answer import ExtractionAnswer
from redstring.extraction.domains import OTHER, DomainSchema, resolve_domain
from redstring.extraction.vocabulary import (
    conform,
    extraction_schema,
    listed_type,
)

OPEN = DomainSchema(
    name="open",
    description="d",
    entity_types=("person", "organization"),
    relationship_types=("works_for",),
    allows_other=True,
)
CLOSED = OPEN.model_copy(update={"name": "closed", "allows_other": False})


def answer(*entities: tuple[str, str], relationships: Any = ()) -> ExtractionAnswer:
    return ExtractionAnswer.model_validate(
        {
            "entities": [{"name": name, "type": kind} for name, kind in entities],
            "relationships": [
                {"source": s, "target": t, "type": kind} for s, t, kind in relationships
            ],
        }
    )


def test_the_schema_lists_the_domains_types_with_other_only_where_allowed() -> None:
    open_schema, closed_schema = extraction_schema(OPEN), extraction_schema(CLOSED)
    good = {"entities": [{"name": "Ada", "type": "person"}]}
    outside = {"entities": [{"name": "Ada", "type": "Engineer"}]}
    other = {
        "entities": [{"name": "Ada", "type": OTHER}],
        "relationships": [{"source": "Ada", "target": "X", "type": OTHER}],
    }
    jsonschema.validate(good, closed_schema)
    jsonschema.validate(other, open_schema)
    for schema in (open_schema, closed_schema):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(outside, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(other, closed_schema)


def test_the_bundled_general_domain_allows_other_and_the_specific_ones_do_not() -> None:
    assert resolve_domain("general").allows_other
    assert not resolve_domain("people_and_organisations").allows_other


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("Person", "person"),
        ("PERSONS", "person"),
        ("Organisation", "organization"),
        (" organization ", "organization"),
        ("Works-For", "works_for"),
        ("works for", "works_for"),
        ("Engineer", None),
        ("s", None),
    ],
)
def test_a_type_spelled_differently_is_mapped_to_the_listed_one(
    given: str, expected: str | None
) -> None:
    assert listed_type(given, ["person", "organization", "works_for"]) == expected


def test_types_outside_the_list_go_to_other_where_allowed_and_are_counted() -> None:
    raw = answer(
        ("Ada", "person"),
        ("Acme", "Company"),
        ("Bob", "Person"),
        relationships=[("Ada", "Acme", "employed_by"), ("Bob", "Acme", "works_for")],
    )
    conformed, tally = conform(raw, OPEN)
    assert [e.type for e in conformed.entities] == ["person", OTHER, "person"]
    assert [r.type for r in conformed.relationships] == [OTHER, "works_for"]
    assert tally.outside == {"Company": 1, "Person": 1, "employed_by": 1}
    assert (tally.entities_dropped, tally.relationships_dropped) == (0, 0)


def test_types_outside_a_closed_list_are_dropped_and_counted_and_the_next_item_kept() -> None:
    raw = answer(
        ("Acme", "Company"),
        ("Ada", "person"),
        relationships=[("Ada", "Acme", "employed_by"), ("Ada", "Acme", "works_for")],
    )
    conformed, tally = conform(raw, CLOSED)
    assert [(e.name, e.type) for e in conformed.entities] == [("Ada", "person")]
    assert [r.type for r in conformed.relationships] == ["works_for"]
    assert (tally.entities_dropped, tally.relationships_dropped) == (1, 1)
    assert tally.outside == {"Company": 1, "employed_by": 1}
