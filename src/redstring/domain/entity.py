"""Entities and the relationships between them."""

from __future__ import annotations

from typing import Any, Self

from pydantic import Field, JsonValue, field_validator

from redstring.domain.ids import (
    EntityId,
    RelationshipId,
    TenantId,
    entity_id_for,
    relationship_id_for,
)
from redstring.domain.model_errors import CheckedModel
from redstring.domain.normalization import normalize_name


# Pydantic calls these only once every earlier field has validated.
def _derived_entity_id(data: dict[str, Any]) -> EntityId:
    return entity_id_for(data["tenant_id"], data["entity_type"], data["name"])


def _derived_relationship_id(data: dict[str, Any]) -> RelationshipId:
    return relationship_id_for(
        data["tenant_id"], data["source_id"], data["relationship_type"], data["target_id"]
    )


def _copy_json(value: Any) -> Any:
    """A copy of a JSON value sharing no list or dict with it (scalars are immutable)."""
    if isinstance(value, dict):
        return {key: _copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_json(item) for item in value]
    return value


#: The fields `Entity.copy_deep` copies rather than shares.
_CONTAINERS = frozenset({"aliases", "properties", "source_document_ids"})


def _require_text(value: str) -> str:
    if not value.strip():
        raise ValueError("it must not be blank; pass the text the source document uses")
    return value


class Entity(CheckedModel):
    """A thing the graph knows about, owned by exactly one tenant.

    `id` defaults to `entity_id_for(tenant_id, entity_type, name)`, so the same
    tenant, type and normalised name always give the same entity.
    `normalized_name` defaults to `normalize_name(name)`; an extractor may set
    another form, and the lexical channel scores both. `properties` is free-form
    JSON. `confidence` is on 0..1. A field it refuses (a blank `name`, a
    `confidence` of 2) raises `InvalidArgumentError` naming it (`Entity.name`).
    """

    tenant_id: TenantId
    entity_type: str
    name: str
    id: EntityId = Field(default_factory=_derived_entity_id)
    normalized_name: str = Field(default_factory=lambda data: normalize_name(data.get("name", "")))
    description: str = ""
    aliases: list[str] = Field(default_factory=list)
    properties: dict[str, JsonValue] = Field(default_factory=dict)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source_document_ids: list[str] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _name_not_blank(cls, value: str) -> str:
        return _require_text(value)

    @field_validator("entity_type")
    @classmethod
    def _type_not_blank(cls, value: str) -> str:
        return _require_text(value)

    def copy_deep(self) -> Self:
        """A copy sharing no mutable state with this entity.

        Only the containers are copied (the other fields are immutable), which
        is several times cheaper than a generic deep copy on the read path. The
        copy is what `model_copy(update=<the three containers copied>)` makes
        (its fields set gains the containers), built without `copy.copy`'s
        dispatch.
        """
        values = self.__dict__.copy()
        values["aliases"] = list(self.aliases)
        values["properties"] = _copy_json(self.properties)
        values["source_document_ids"] = list(self.source_document_ids)
        extra = self.__pydantic_extra__
        copied = type(self).__new__(type(self))
        object.__setattr__(copied, "__dict__", values)
        object.__setattr__(copied, "__pydantic_extra__", None if extra is None else dict(extra))
        object.__setattr__(copied, "__pydantic_fields_set__", self.model_fields_set | _CONTAINERS)
        object.__setattr__(copied, "__pydantic_private__", None)
        return copied


class Relationship(CheckedModel):
    """A typed, directed edge between two entities of the same tenant.

    `id` defaults to `relationship_id_for(tenant, source, type, target)`.
    `confidence` is on 0..1. `source_document_ids` are the documents that
    state it (empty for relationships written before they were recorded:
    none is known). A field it refuses raises `InvalidArgumentError` naming
    it (`Relationship.relationship_type`).
    """

    tenant_id: TenantId
    source_id: EntityId
    target_id: EntityId
    relationship_type: str
    id: RelationshipId = Field(default_factory=_derived_relationship_id)
    description: str = ""
    properties: dict[str, JsonValue] = Field(default_factory=dict)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source_document_ids: list[str] = Field(default_factory=list)

    @field_validator("relationship_type")
    @classmethod
    def _type_not_blank(cls, value: str) -> str:
        return _require_text(value)
