"""Blocking keys (scheme version 4, ADR 0070, 0115 and 0200), at name level and entity level."""

from __future__ import annotations

from uuid import UUID

import pytest

from redstring.domain.blocking import (
    KEY_VERSION,
    MAX_PAIR_TOKENS,
    TOKEN_PREFIX_LENGTH,
    blocking_keys_for,
    exact_key_for_name,
    initials_key_for_name,
    initials_of,
    interleave,
    name_keys_for,
    prefix_key,
    prefix_key_for_name,
    query_blocking_keys,
    query_exact_key,
    query_ngram_keys,
    shortlist,
    soundex_key,
    soundex_key_for_name,
    telling_blocks,
    token_keys_for,
    type_key,
)
from redstring.domain.ids import EntityId
from redstring.domain.legal_forms import KEYLESS_TOKENS, LEGAL_SUFFIXES
from redstring.domain.query import NormalizedQuery
from tests.factories import make_entity

ADA = make_entity("Ada Lovelace")


def query_keys(query: str) -> list[str]:
    return query_blocking_keys(NormalizedQuery.of(query))


def shared(query: str, name: str) -> set[str]:
    return set(query_keys(query)) & blocking_keys_for(make_entity(name))


def test_the_key_scheme_is_version_seven() -> None:
    assert KEY_VERSION == 7


def test_prefix_key_for_name_agrees_with_the_entity_form() -> None:
    assert prefix_key(ADA) == prefix_key_for_name("Ada Lovelace")


def test_soundex_key_for_name_agrees_with_the_entity_form() -> None:
    assert soundex_key(ADA) == soundex_key_for_name("Ada Lovelace")


def test_soundex_key_for_name_is_none_when_nothing_can_be_coded() -> None:
    assert soundex_key_for_name("12345") is None
    assert soundex_key_for_name("東京") is None


def test_query_blocking_keys_carries_the_whole_name_keys() -> None:
    keys = query_keys("Ada Lovelace")
    assert prefix_key_for_name("Ada Lovelace") in keys
    assert soundex_key_for_name("Ada Lovelace") in keys


def test_query_blocking_keys_never_carries_a_type_key() -> None:
    assert all(not key.startswith("t:") for key in query_keys("person"))


def test_query_blocking_keys_drops_an_absent_soundex() -> None:
    assert query_keys("12345") == ["n:12345", "j:12345", "p:12345", "w:1234"]


def test_query_blocking_keys_has_no_duplicates() -> None:
    keys = query_keys("Ada Ada Lovelace")
    assert len(keys) == len(set(keys))


def test_the_prefix_is_five_matching_characters() -> None:
    assert prefix_key_for_name("  ADA   Lovelace") == "p:ada l"
    assert prefix_key_for_name("Lovelace, Ada") == "p:lovel"


def test_an_accented_letter_keeps_its_base_in_the_soundex() -> None:
    assert soundex_key_for_name("Élodie") == soundex_key_for_name("Elodie") == "s:E430"


def test_the_whole_name_is_coded_not_the_first_token() -> None:
    assert soundex_key_for_name("Ada Lovelace") != soundex_key_for_name("Ada")


def test_accents_and_punctuation_do_not_change_any_key() -> None:
    assert name_keys_for("Élodie Dupré-Smith") == name_keys_for("elodie dupre smith")
    assert name_keys_for("O'Brien") == name_keys_for("OBrien")


def test_each_token_makes_a_prefix_key_and_a_soundex_key() -> None:
    assert token_keys_for("lovelace") == ["w:" + "lovelace"[:TOKEN_PREFIX_LENGTH], "x:L142"]
    assert token_keys_for("東京都") == ["w:東京都"]
    assert {"w:love", "x:L142", "w:ada", "x:A300"} <= set(name_keys_for("Ada Lovelace"))


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("Lovelace", "surname only"),
        ("Ada", "first name only"),
        ("Lovelace, Ada", "reordered"),
        ("A. Lovelace", "initial plus surname"),
        ("Adq Lvoelace", "a typo in the first letters of each token"),
    ],
)
def test_a_partial_or_reordered_query_shares_a_key_with_the_full_name(query: str, why: str) -> None:
    assert shared(query, "Ada Lovelace"), why


def test_a_typo_in_one_token_leaves_the_other_tokens_keys() -> None:
    assert {"w:love", "x:L142"} <= shared("Aad Lovelace", "Ada Lovelace")
    assert {"w:ada", "x:A300"} <= shared("Ada Lvoelace", "Ada Lovelace")


def test_legal_forms_and_function_words_never_make_a_key() -> None:
    keys = name_keys_for("The Acme Corporation of Sydney Pty Ltd")
    token_keys = {key for key in keys if key[:2] in ("w:", "x:")}
    assert token_keys == set(token_keys_for("acme")) | set(token_keys_for("sydney"))
    assert set(LEGAL_SUFFIXES) <= KEYLESS_TOKENS
    assert not shared("Corp", "Acme Corp") - {"p:corp", "s:C610"}


def test_a_one_letter_token_makes_no_token_key() -> None:
    assert not [key for key in name_keys_for("J Smith") if key in ("w:j", "x:J000")]


def test_the_initials_key_skips_legal_forms_and_needs_two_letters() -> None:
    assert initials_of("Monis & Lapienis International") == "mli"
    assert initials_key_for_name("United Capital Intl Corp") == "i:uci"
    assert initials_key_for_name("Acme Corp") is None


def test_an_acronym_query_finds_its_expansion_through_the_initials_key() -> None:
    assert shared("UCI Corp", "United Capital Intl Corp") == {"i:uci"}
    assert "i:corp" not in query_keys("UCI Corp")


def test_a_blank_name_has_no_keys() -> None:
    assert name_keys_for("  ,.- ") == []


def test_an_entity_is_filed_under_its_names_and_type() -> None:
    entity = make_entity("Ada Lovelace", aliases=["Augusta King"])
    keys = blocking_keys_for(entity)
    assert type_key(entity) == "t:person"
    assert set(name_keys_for("Ada Lovelace")) <= keys
    assert set(name_keys_for("Augusta King")) <= keys
    assert "t:person" in keys


def test_the_shortlist_puts_ids_under_more_keys_first_then_ascending_ids() -> None:
    one, two, three, four = (
        EntityId(UUID(f"00000000-0000-4000-8000-{n:012x}")).int for n in (1, 2, 3, 4)
    )
    blocks = {"w:ada": [one, three, four], "w:love": [three, four], "x:L142": [four, two]}
    assert shortlist(blocks, 10) == [four, three, one, two]
    assert shortlist(blocks, 2) == [four, three]
    assert shortlist(blocks, 0) == []
    assert shortlist({}, 5) == []


def test_the_shortlist_tie_break_is_the_id_string_order() -> None:
    ids = [EntityId(UUID(int=n)) for n in (2**127, 15, 2**64, 255, 16)]
    assert shortlist({"k": [i.int for i in ids]}, 5) == [i.int for i in sorted(ids, key=str)]


# ------------------------------------------------- exact-name and trigram keys (ADR 0115)


def test_a_name_is_filed_under_its_whole_matching_form() -> None:
    assert exact_key_for_name("  Lovelacé, ADA ") == "n:lovelace ada"
    assert exact_key_for_name(" ,. ") is None
    assert name_keys_for("Ada Lovelace")[0] == "n:ada lovelace"
    assert query_exact_key(NormalizedQuery.of("ADA  lovelace")) == "n:ada lovelace"
    assert query_exact_key(NormalizedQuery.of(" - ")) is None


def test_an_entity_is_filed_under_the_trigrams_of_each_name_but_a_query_looks_them_up_apart() -> (
    None
):
    entity = make_entity("Ada", aliases=["Bo"])
    assert {"g: ad", "g:ada", "g:da ", "g: bo", "g:bo "} <= blocking_keys_for(entity)
    assert not [key for key in query_keys("Ada") if key.startswith("g:")]
    assert query_ngram_keys(NormalizedQuery.of("Ada")) == ["g: ad", "g:ada", "g:da "]


def test_interleaving_puts_exact_matches_first_then_alternates_the_sources() -> None:
    a, b, c, d, e = (EntityId(UUID(int=n)) for n in (1, 2, 3, 4, 5))
    assert interleave([e], [[a, b, c], [d, a]], 10) == [e, a, d, b, c]
    assert interleave([e], [[a, b, c], [d, a]], 3) == [e, a, d]
    assert interleave([e, d], [[a]], 1) == [e]
    assert interleave([], [[], []], 5) == []


def test_a_name_written_without_its_spaces_shares_the_joined_key() -> None:
    assert "j:johnsmith" in name_keys_for("John Smith")
    assert "j:johnsmith" in name_keys_for("JohnSmith")
    assert shared("JohnSmith", "John Smith") >= {"j:johnsmith"}
    assert "j:johnsmith" not in shared("John Smithers", "John Smith")


def test_an_initial_and_another_whole_token_make_a_pair_key_both_ways() -> None:
    keys = name_keys_for("John Smith")
    assert [key for key in keys if key.startswith("a:")] == ["a:j smith", "a:s john"]
    assert "a:j smith" in shared("J. Smith", "John Smith")
    assert "a:j smith" in shared("Jonh Smith", "John Smith")  # a typo in the other token
    assert "a:s john" in shared("John Smtih", "John Smith")
    assert {"a:j smith", "a:s john"} <= shared("Smith, John", "John Smith")


def test_pair_keys_skip_equal_tokens_legal_forms_and_tokens_past_the_bound() -> None:
    assert not [key for key in name_keys_for("Smith Smith") if key.startswith("a:")]
    assert not [key for key in name_keys_for("Smith Ltd") if key.startswith("a:")]
    name = "Alpha Bravo Charlie Delta Echo"
    pairs = [key for key in name_keys_for(name) if key.startswith("a:")]
    assert len(pairs) == MAX_PAIR_TOKENS * (MAX_PAIR_TOKENS - 1) == 12
    assert not [key for key in pairs if "echo" in key or key.startswith("a:e")]
    query_pairs = [key for key in query_keys(name) if key.startswith("a:")]
    assert query_pairs == pairs


def test_only_blocks_within_the_limit_are_telling() -> None:
    ids = [EntityId(UUID(int=n)) for n in range(1, 5)]
    blocks = {"w:a": ids[:3], "w:b": ids[:3], "w:c": []}
    sizes = {"w:a": 3, "w:b": 4, "w:c": 0}  # "w:b" was read capped at 3
    assert telling_blocks(blocks, sizes, 3) == {"w:a": ids[:3], "w:c": []}
    assert telling_blocks(blocks, sizes, 4) == blocks
