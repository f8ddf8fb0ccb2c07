"""Blocking keys, at name level and entity level."""

from __future__ import annotations

from redstring.domain.blocking import (
    blocking_keys_for,
    prefix_key,
    prefix_key_for_name,
    query_blocking_keys,
    soundex_key,
    soundex_key_for_name,
    type_key,
)
from tests.factories import make_entity


def test_prefix_key_for_name_agrees_with_the_entity_form() -> None:
    assert prefix_key(make_entity("Ada Lovelace")) == prefix_key_for_name("Ada Lovelace")


def test_soundex_key_for_name_agrees_with_the_entity_form() -> None:
    assert soundex_key(make_entity("Ada Lovelace")) == soundex_key_for_name("Ada Lovelace")


def test_soundex_key_for_name_is_none_when_nothing_can_be_coded() -> None:
    assert soundex_key_for_name("12345") is None
    assert soundex_key_for_name("東京") is None


def test_query_blocking_keys_carries_prefix_and_soundex() -> None:
    keys = query_blocking_keys("Ada Lovelace")
    assert prefix_key_for_name("Ada Lovelace") in keys
    assert soundex_key_for_name("Ada Lovelace") in keys


def test_query_blocking_keys_never_carries_a_type_key() -> None:
    assert all(not key.startswith("t:") for key in query_blocking_keys("person"))


def test_query_blocking_keys_drops_an_absent_soundex() -> None:
    assert query_blocking_keys("12345") == [prefix_key_for_name("12345")]


def test_query_blocking_keys_has_no_duplicates() -> None:
    keys = query_blocking_keys("Ada Lovelace")
    assert len(keys) == len(set(keys)) == 2


def test_the_prefix_is_five_normalised_characters() -> None:
    assert prefix_key_for_name("  ADA   Lovelace") == "p:ada l"


def test_an_accented_letter_keeps_its_base_in_the_soundex() -> None:
    assert soundex_key_for_name("Élodie") == soundex_key_for_name("Elodie") == "s:E430"


def test_the_whole_name_is_coded_not_the_first_token() -> None:
    assert soundex_key_for_name("Ada Lovelace") != soundex_key_for_name("Ada")


def test_an_entity_is_filed_under_its_names_and_type() -> None:
    entity = make_entity("Ada Lovelace", aliases=["Augusta King"])
    keys = blocking_keys_for(entity)
    assert type_key(entity) == "t:person"
    assert set(query_blocking_keys("Ada Lovelace")) <= keys
    assert set(query_blocking_keys("Augusta King")) <= keys
    assert "t:person" in keys
