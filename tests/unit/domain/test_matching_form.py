"""`matching_form` spells names in ASCII where that is safe, so a name in another script
matches its Latin spelling; ids never move (they read `normalize_name`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.lexical import lexical_score
from redstring.domain.normalization import (
    matching_form,
    normalize_name,
    written_in_another_script,
)
from redstring.domain.query import NormalizedQuery
from tests.factories import make_entity


@pytest.mark.parametrize(
    ("name", "form"),
    [
        ("Москва-Сити", "moskva siti"),  # Cyrillic
        ("Ελλάδα", "ellada"),  # Greek, its accent dropped
        ("ルワンダ", "ruwanda"),  # katakana, its voicing mark kept
        ("서울", "seoul"),  # Hangul
        ("Łódź", "lodz"),  # Latin letters NFKD cannot take apart
        ("Straße", "strasse"),
        ("Ærø", "aero"),
        ("Þór", "thor"),
        ("İngiliz Virgin Adaları", "ingiliz virgin adalari"),
        ("Lovelacé, Ada", "lovelace ada"),  # as before: accents folded, punctuation a space
    ],
)
def test_a_name_is_matched_in_its_ascii_spelling(name: str, form: str) -> None:
    assert matching_form(name) == form


@pytest.mark.parametrize(
    ("name", "form"),
    [
        ("北京", "北京"),  # Chinese characters: their readings collide, so they stay
        ("東京タワー", "東京tawa"),  # the kana beside them are spelled out
        ("σ", "σ"),  # a lone letter is a symbol, not a word
        ("µm", "μm"),  # micrometre, not "mm"
        ("abΩ", "abω"),
        ("£5", "5"),  # a symbol stays punctuation, never "gbp"
    ],
)
def test_what_spelling_out_would_confuse_is_kept(name: str, form: str) -> None:
    assert matching_form(name) == form


@pytest.mark.parametrize(
    ("name", "form"),
    [
        ("ft²", "ft square"),
        ("inches³", "inches cubic"),
        ("m/s²", "m s square"),
        ("x²+y²", "x square y square"),
        ("10²", "102"),  # after a digit, a digit as before
        ("H₂O", "h2o"),  # a subscript is a digit
        ("m2", "m2"),
    ],
)
def test_a_superscript_after_a_letter_is_read_as_its_exponent_word(name: str, form: str) -> None:
    assert matching_form(name) == form


def test_an_exponent_finds_the_unit_named_by_its_word() -> None:
    query = NormalizedQuery.of("inches²")
    square = lexical_score(query, make_entity("square inch"))
    assert square > lexical_score(query, make_entity("inch"))
    assert square > lexical_score(query, make_entity("cubic inch"))


def test_ids_still_read_the_name_as_written() -> None:
    assert normalize_name("Москва") == "москва"
    assert normalize_name("Москва") != normalize_name("Moskva")


@given(st.text(max_size=30))
def test_the_form_is_its_own_form_and_has_no_capitals_or_punctuation(name: str) -> None:
    form = matching_form(name)
    assert matching_form(form) == form
    assert form == form.casefold()
    assert all(ch.isalnum() for token in form.split() for ch in token)


def test_a_name_in_another_script_scores_as_its_latin_spelling() -> None:
    query = NormalizedQuery.of("Москва")
    assert lexical_score(query, make_entity("Moskva")) == 1.0
    assert lexical_score(NormalizedQuery.of("Moskva"), make_entity("Москва")) == 1.0
    assert lexical_score(query, make_entity("Moscow")) < 1.0


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("Москва", True),
        ("ルワンダ", True),
        ("北京", True),
        ("Москва Rus", True),  # most letters are Cyrillic
        ("Moscow Мск", False),
        ("Łódź", False),
        ("µm", False),
        ("σ", False),  # one letter is a symbol
        ("", False),
    ],
)
def test_a_query_knows_when_it_is_written_in_another_script(text: str, other: bool) -> None:
    assert written_in_another_script(text) is other
    assert NormalizedQuery.of(text).other_script is other
