"""Domain schemas: the entity and relationship types that specialise the extraction prompt.

A handful ship as JSON package data in `domain_schemas/`; a caller may pass
its own `DomainSchema`, a bundled schema's name, or `AUTO` to let the model
choose among the bundled ones.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field

from redstring.domain.errors import UnknownDomainError

GENERAL = "general"
#: The type an item outside a domain's lists gets, where the domain allows it.
OTHER = "other"


class DomainSchema(BaseModel):
    """The vocabulary one kind of text is extracted with.

    Answers are held to `entity_types` and `relationship_types`; with
    `allows_other` an item of any other type is kept as `other`, else dropped.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    description: str
    entity_types: tuple[str, ...] = Field(min_length=1)
    relationship_types: tuple[str, ...] = Field(min_length=1)
    hints: str = ""
    allows_other: bool = False


class AutoDomain:
    """The choice to let the model pick the domain schema; use the `AUTO` instance."""

    _instance: AutoDomain | None = None

    def __new__(cls) -> AutoDomain:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "AUTO"


AUTO = AutoDomain()

DomainSpec = DomainSchema | str | AutoDomain


@cache
def _bundled() -> tuple[DomainSchema, ...]:
    folder = resources.files("redstring.extraction") / "domain_schemas"
    schemas = [
        DomainSchema.model_validate(json.loads(entry.read_text(encoding="utf-8")))
        for entry in folder.iterdir()
        if entry.name.endswith(".json")
    ]
    return tuple(sorted(schemas, key=lambda schema: schema.name))


def bundled_domains() -> dict[str, DomainSchema]:
    """Every bundled schema by name, in name order."""
    return {schema.name: schema for schema in _bundled()}


def resolve_domain(domain: DomainSchema | str) -> DomainSchema:
    """`domain` itself, or the bundled schema of that name; `UnknownDomainError` otherwise."""
    if isinstance(domain, DomainSchema):
        return domain
    known = bundled_domains()
    if domain not in known:
        raise UnknownDomainError(name=domain, known=list(known))
    return known[domain]
