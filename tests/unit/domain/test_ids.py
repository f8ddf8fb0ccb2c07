"""Derived ids are injective: distinct inputs never share an id (ADR 0133)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from uuid import UUID

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from redstring.domain.chunk import chunk_id_for
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import (
    EntityId,
    TenantId,
    entity_id_for,
    length_prefixed,
    relationship_id_for,
    tenant_id_for,
)
from redstring.domain.normalization import normalize_name

# Separators, digits and colons are what a careless encoding confuses.
_TRICKY = st.text(alphabet=st.sampled_from("ab:0159\x1f\x00 é\n"), max_size=8)
_FIELDS = st.lists(_TRICKY, max_size=4)


def _decode(material: bytes) -> list[str]:
    """Read `length_prefixed`'s bytes back into their fields (it fails on anything else)."""
    fields: list[str] = []
    at = 0
    while at < len(material):
        colon = material.index(b":", at)
        length = int(material[at:colon])
        start = colon + 1
        fields.append(material[start : start + length].decode("utf-8"))
        at = start + length
    assert at == len(material)
    return fields


def test_the_issues_colliding_pair_gets_two_chunk_ids() -> None:
    """Issue 14 item 3: "notes\\x1fdraft" + text and "notes" + "draft\\x1f" + text."""
    first = chunk_id_for("notes\x1fdraft", "Ada wrote the program.")
    second = chunk_id_for("notes", "draft\x1fAda wrote the program.")
    assert first != second


def test_the_chunk_id_encoding_is_pinned() -> None:
    """Stored ids and the SQL migrations depend on these exact bytes."""
    material = b"5:chunk5:notes22:Ada wrote the program."
    assert length_prefixed("chunk", "notes", "Ada wrote the program.") == material
    expected = "c:" + hashlib.sha256(material).hexdigest()[:32]
    assert chunk_id_for("notes", "Ada wrote the program.") == expected
    assert length_prefixed("é") == b"2:\xc3\xa9"  # lengths count UTF-8 bytes


@given(_FIELDS)
def test_length_prefixed_reads_back_into_its_fields(fields: list[str]) -> None:
    assert _decode(length_prefixed(*fields)) == fields


@given(st.tuples(_TRICKY, _TRICKY), st.tuples(_TRICKY, _TRICKY))
@example(("notes\x1fdraft", "x"), ("notes", "draft\x1fx"))
def test_distinct_source_and_text_pairs_never_share_a_chunk_id(
    a: tuple[str, str], b: tuple[str, str]
) -> None:
    assert (chunk_id_for(*a) == chunk_id_for(*b)) == (a == b)


@given(st.lists(st.tuples(_TRICKY, _TRICKY), unique=True, min_size=2, max_size=12))
def test_many_distinct_pairs_give_as_many_chunk_ids(pairs: list[tuple[str, str]]) -> None:
    assert len({chunk_id_for(*pair) for pair in pairs}) == len(pairs)


_TENANTS = st.sampled_from([TenantId(UUID(int=1)), TenantId(UUID(int=2))])


@given(_TENANTS, _TRICKY, _TRICKY, _TENANTS, _TRICKY, _TRICKY)
def test_entity_ids_differ_exactly_when_the_normalised_inputs_differ(
    tenant_a: TenantId, type_a: str, name_a: str, tenant_b: TenantId, type_b: str, name_b: str
) -> None:
    """Normalised names hold no unit separator (it is whitespace), so the join is injective."""
    same_input = (tenant_a, normalize_name(type_a), normalize_name(name_a)) == (
        tenant_b,
        normalize_name(type_b),
        normalize_name(name_b),
    )
    same_id = entity_id_for(tenant_a, type_a, name_a) == entity_id_for(tenant_b, type_b, name_b)
    assert same_id == same_input


@given(_TRICKY, _TRICKY)
def test_relationship_ids_differ_when_their_type_or_ends_differ(type_a: str, type_b: str) -> None:
    tenant = TenantId(UUID(int=1))
    one, two = EntityId(UUID(int=3)), EntityId(UUID(int=4))
    ids = {
        (normalize_name(t), s, o): relationship_id_for(tenant, s, t, o)
        for t in (type_a, type_b)
        for s, o in ((one, two), (two, one))
    }
    assert len(set(ids.values())) == len(ids)


@given(_TRICKY.filter(str.strip), _TRICKY.filter(str.strip))
def test_tenant_ids_differ_exactly_when_the_stripped_names_differ(a: str, b: str) -> None:
    assert (tenant_id_for(a) == tenant_id_for(b)) == (a.strip() == b.strip())


_SURROGATE_CASES = [
    (
        "name",
        lambda: Entity(tenant_id=TenantId(UUID(int=1)), entity_type="person", name="Ada\ud800"),
    ),
    (
        "entity_type",
        lambda: Entity(tenant_id=TenantId(UUID(int=1)), entity_type="p\udc00", name="Ada"),
    ),
    ("entity_type", lambda: entity_id_for(TenantId(UUID(int=1)), "p\udc00", "Ada")),
    (
        "relationship_type",
        lambda: Relationship(
            tenant_id=TenantId(UUID(int=1)),
            source_id=EntityId(UUID(int=3)),
            target_id=EntityId(UUID(int=4)),
            relationship_type="knows\ud800",
        ),
    ),
    ("source_id", lambda: chunk_id_for("doc\ud800", "text")),
    ("text", lambda: chunk_id_for("doc", "text\udfff")),
]


@pytest.mark.parametrize(("field", "build"), _SURROGATE_CASES)
def test_a_lone_surrogate_in_an_id_field_is_refused_by_name(
    field: str, build: Callable[[], object]
) -> None:
    """B142: the derived id's hash cannot encode it, so the refusal names the field."""
    with pytest.raises(InvalidArgumentError) as refused:
        build()
    assert refused.value.name == field
