"""The MCP server's refusals name the argument and say what it must be."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError, field_validator

from redstring.cli.mcp_errors import argument_error, library_error


class _Arguments(BaseModel):
    k: int = 10
    label: str = ""
    exact: bool = False

    @field_validator("label")
    @classmethod
    def _no_digits(cls, value: str) -> str:
        if any(ch.isdigit() for ch in value):
            raise ValueError("must hold no digit.")
        return value


def _refusal(arguments: dict[str, object], schema: dict[str, object]) -> str:
    with pytest.raises(ValidationError) as refused:
        _Arguments.model_validate(arguments)
    return argument_error("tool", refused.value, {"k": schema})


@pytest.mark.parametrize(
    ("schema", "said"),
    [
        ({"minimum": 1, "maximum": 50}, "must be a whole number from 1 to 50"),
        ({"minimum": 1}, "must be a whole number from 1 (got 5.5)"),
        ({"maximum": 50}, "must be a whole number up to 50"),
        ({}, "must be a whole number (got 5.5)"),
    ],
)
def test_a_whole_number_is_refused_with_the_bounds_its_schema_states(
    schema: dict[str, object], said: str
) -> None:
    assert f"Argument `k` {said}" in _refusal({"k": 5.5}, schema)


def test_a_validators_own_reason_is_given() -> None:
    said = _refusal({"label": "r2d2"}, {})
    assert "Argument `label` must hold no digit (got 'r2d2')." in said


def test_any_other_refusal_gives_pydantics_reason_as_a_clause() -> None:
    said = _refusal({"exact": "maybe"}, {})
    assert "Argument `exact` input should be a valid boolean" in said


def test_a_value_error_of_the_library_is_given_on_one_line() -> None:
    said = library_error("search_passages", ValueError("the query\n  is   too long"))
    assert said == "search_passages: the query is too long"
