"""The shape of a model's answer, as pydantic models and the JSON schemas sent with prompts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator


def _stripped(value: str) -> str:
    stripped = _no_nul(value).strip()
    if not stripped:
        raise ValueError("must not be blank")
    return stripped


def _no_nul(value: str) -> str:
    """`value` unless it holds a NUL, which no store keeps (PostgreSQL cannot, ADR 0645)."""
    if "\x00" in value:
        raise ValueError("must not hold a NUL character (\\x00): no store keeps one")
    return value


def _no_nul_in_json(value: JsonValue) -> JsonValue:
    """`value` unless a string or key anywhere in it holds a NUL."""
    if isinstance(value, str):
        _no_nul(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_nul(key)
            _no_nul_in_json(item)
    elif isinstance(value, list):
        for item in value:
            _no_nul_in_json(item)
    return value


class ExtractedEntity(BaseModel):
    """One entity as the model reports it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    type: str = Field(min_length=1)
    description: str = ""
    properties: dict[str, JsonValue] = Field(default_factory=dict)

    @field_validator("name", "type")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        return _stripped(value)

    @field_validator("description")
    @classmethod
    def _description_storable(cls, value: str) -> str:
        return _no_nul(value)

    @field_validator("properties")
    @classmethod
    def _properties_storable(cls, value: dict[str, JsonValue]) -> dict[str, JsonValue]:
        _no_nul_in_json(value)
        return value


class ExtractedRelationship(BaseModel):
    """One relationship as the model reports it; ends are entity names from the same answer."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(min_length=1)
    target: str = Field(min_length=1)
    type: str = Field(min_length=1)
    description: str = ""

    @field_validator("source", "target", "type")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        return _stripped(value)

    @field_validator("description")
    @classmethod
    def _description_storable(cls, value: str) -> str:
        return _no_nul(value)


class ExtractionAnswer(BaseModel):
    """The whole answer for one chunk."""

    model_config = ConfigDict(extra="forbid")

    entities: list[ExtractedEntity]
    relationships: list[ExtractedRelationship] = Field(default_factory=list)


class DomainChoice(BaseModel):
    """The model's pick of a domain schema, with its confidence on 0..1."""

    domain: str
    confidence: float = Field(ge=0.0, le=1.0)


EXTRACTION_SCHEMA: dict[str, Any] = ExtractionAnswer.model_json_schema()


def domain_choice_schema(names: Sequence[str]) -> dict[str, Any]:
    """The JSON schema of a `DomainChoice` whose `domain` must be one of `names`."""
    return {
        "type": "object",
        "properties": {
            "domain": {"type": "string", "enum": list(names)},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        },
        "required": ["domain", "confidence"],
        "additionalProperties": False,
    }
