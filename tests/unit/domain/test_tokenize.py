"""The text analysis of the chunk corpus: words, stopwords, stems, and the setting's rules."""

from __future__ import annotations

import re
import unicodedata

import pytest
import Stemmer
from bm25s.stopwords import STOPWORDS_EN
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.errors import (
    AnalysisMismatchError,
    CorruptSettingError,
    InvalidArgumentError,
)
from redstring.domain.normalization import normalize_name
from redstring.domain.tokenize import (
    COMPOUND_JOINER,
    DEFAULT_LANGUAGE,
    ENGLISH_STOPWORDS,
    LANGUAGES,
    UNANALYSED,
    Analyzer,
    settled_language,
    word_spans,
    words,
)

ENGLISH = Analyzer()
NONE = Analyzer("none")


def test_words_are_casefolded_and_repeats_kept_in_order() -> None:
    assert words("Engine ENGINE engine, notes!") == ["engine", "engine", "engine", "notes"]
    assert NONE.terms("Engine ENGINE engine, notes!") == ["engine", "engine", "engine", "notes"]


def test_english_drops_stopwords_and_stems_what_is_left() -> None:
    assert ENGLISH.terms("The notes of the Engine and its author") == [
        "note",
        "engin",
        "it",
        "author",
    ]
    assert ENGLISH.terms("running runs ran studies studied") == [
        "run",
        "run",
        "ran",
        "studi",
        "studi",
    ]


def test_no_analysis_keeps_every_word_as_written() -> None:
    assert NONE.terms("The notes of the Engine") == ["the", "notes", "of", "the", "engine"]


def test_the_english_stopwords_are_lucenes_list_and_the_possessive_remnants() -> None:
    # bm25s ships Lucene's English stop set as its "en" list.
    assert set(STOPWORDS_EN) | {"s", "t"} == ENGLISH_STOPWORDS
    assert ENGLISH.terms("Ada's engine didn't") == ["ada", "engin", "didn"]


def test_other_languages_stem_their_own_words_and_drop_nothing() -> None:
    german = Analyzer("german")
    assert german.terms("Die Häuser und das Haus") == ["die", "haus", "und", "das", "haus"]
    assert Analyzer("French").terms("les chevaux") == ["le", "cheval"]


def test_nfkc_folds_compatibility_forms_and_casefold_folds_sharp_s() -> None:
    # Fullwidth letters, a ligature, and German sharp s.
    assert words("ＡＤＡ ﬁle Straße") == ["ada", "file", "strasse"]


def test_non_latin_scripts_are_words_too() -> None:
    assert words("Ada Λάβλεϊς — Лавлейс 1843") == ["ada", "λάβλεϊσ", "лавлейс", "1843"]


def test_punctuation_and_underscores_split_words() -> None:
    assert words("babbage's snake_case x-ray") == ["babbage", "s", "snake", "case", "x", "ray"]


def test_blank_text_has_no_terms() -> None:
    assert ENGLISH.terms("") == []
    assert ENGLISH.terms("  \n the of ") == []
    assert NONE.terms("") == []


@settings(deadline=None)
@given(st.text())
def test_english_terms_are_the_stems_of_the_words_that_are_not_stopwords(text: str) -> None:
    """The remembered stems change nothing: each term is PyStemmer's stem of its word;
    after them come compound terms, each joining two or more of the text's words,
    stemmed or (a stopword) as written, and no plain term holds the joiner."""
    stemmer = Stemmer.Stemmer("english")
    expected = [stemmer.stemWord(w) for w in words(text) if w not in ENGLISH_STOPWORDS]
    terms = ENGLISH.terms(text)
    assert terms[: len(expected)] == expected
    parts = {stemmer.stemWord(w) for w in words(text)} | set(words(text))
    for compound in terms[len(expected) :]:
        joined = compound.split(COMPOUND_JOINER)
        assert len(joined) >= 2
        assert set(joined) <= parts
    for term in terms:
        assert term
        assert not any(ch.isspace() for ch in term)
    assert not any(COMPOUND_JOINER in term for term in expected)


def test_the_remembered_stems_start_again_past_their_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import redstring.domain.tokenize as tokenize_module  # noqa: PLC0415

    monkeypatch.setattr(tokenize_module, "_REMEMBERED_WORDS", 3)
    analyzer = Analyzer()
    assert analyzer.terms("running jumping the walking talked") == [
        "run",
        "jump",
        "walk",
        "talk",
    ]
    assert analyzer.terms("running jumping") == ["run", "jump"]


def reference_words(text: str) -> list[str]:
    """`words` as it stands without its ASCII path (B101): one character at a time."""
    return _oracle_words(normalize_name(text))


@settings(max_examples=400)
@given(st.one_of(st.text(alphabet=st.characters(max_codepoint=127)), st.text()))
def test_the_ascii_path_splits_exactly_as_the_regex_does(text: str) -> None:
    assert words(text) == reference_words(text)


def test_every_ascii_character_splits_or_joins_as_the_regex_says() -> None:
    every = "".join(chr(code) for code in range(128))
    assert words(f"a{every}b x_y 1.5 don't") == reference_words(f"a{every}b x_y 1.5 don't")


def test_a_language_is_named_case_blind_and_an_unknown_one_is_refused() -> None:
    assert Analyzer("ENGLISH") == ENGLISH
    assert DEFAULT_LANGUAGE == "english"
    assert {"english", "german", "none"} <= LANGUAGES
    with pytest.raises(InvalidArgumentError, match=r"language='klingon'.*english.*none"):
        Analyzer("klingon")
    with pytest.raises(InvalidArgumentError):
        Analyzer(UNANALYSED)


def settle(asked: str | None, stored: str | None, *, holds: bool = True) -> str:
    return settled_language(asked, stored, holds_chunks=holds, store="S", path="p.db")


def test_a_new_index_takes_the_language_asked_or_english() -> None:
    assert settle(None, None, holds=False) == "english"
    assert settle("German", None, holds=False) == "german"


def test_an_index_keeps_its_language_and_refuses_another_while_it_holds_chunks() -> None:
    assert settle(None, "german") == "german"
    assert settle("german", "german") == "german"
    with pytest.raises(AnalysisMismatchError) as refused:
        settle("english", "german")
    assert (refused.value.stored, refused.value.asked) == ("german", "english")
    assert "language='german'" in str(refused.value)
    assert "Open it without language" in str(refused.value)
    assert settle("english", "german", holds=False) == "english"


def test_unanalysed_postings_take_the_language_asked_or_english() -> None:
    assert settle(None, UNANALYSED) == "english"
    assert settle("none", UNANALYSED) == "none"


def test_a_recorded_value_that_names_no_language_is_corrupt() -> None:
    with pytest.raises(CorruptSettingError, match="chunks language"):
        settle(None, "klingon")


#: The compound and path patterns written plainly: every start, every shorter word tried.
_PLAIN_COMPOUND = re.compile(r"[^\W_]+(?:[_-]+[^\W_]+)+")
_PLAIN_PATH = re.compile(r"[^\W_]+(?:[_./:-]+[^\W_]+)+")


@settings(max_examples=500)
@given(st.text(alphabet="ab9é Ω_./:-\n", max_size=40))
def test_the_compound_patterns_find_what_the_plain_ones_find(text: str) -> None:
    """They start only where a word starts and take words whole, for speed alone."""
    from redstring.domain import tokenize  # noqa: PLC0415 (the private patterns)

    assert tokenize._COMPOUND.findall(text) == _PLAIN_COMPOUND.findall(text)
    assert tokenize._PATH.findall(text) == _PLAIN_PATH.findall(text)


def test_a_hyphen_joins_a_compound_when_a_word_of_it_holds_a_digit() -> None:
    assert ENGLISH.terms("x86-64 and UTF-8") == ["x86", "64", "utf", "8", "x86_64", "utf_8"]
    assert ENGLISH.terms("carbon-14 sha-256-digest") == [
        *["carbon", "14", "sha", "256", "digest"],
        *["carbon_14", "sha_256_digest"],
    ]
    assert ENGLISH.terms("x86-64") == ENGLISH.terms("X86_64")
    # Prose hyphenates words of letters: they stay words, and numbers stay numbers.
    assert ENGLISH.terms("a well-known kube-proxy") == ["well", "known", "kube", "proxi"]
    assert ENGLISH.terms("pages 2-3 at 10:30") == ["page", "2", "3", "10", "30"]
    # Beside an underscore a hyphen joins too: the compound is an identifier.
    assert ENGLISH.terms("max-connections_limit") == [
        *["max", "connect", "limit"],
        "max_connect_limit",
    ]


def test_combining_marks_stay_in_their_words() -> None:
    """A vowel sign or virama (category M) is part of its word, never a split."""
    assert words("मैं एक किताब पढ़ता हूँ") == ["मैं", "एक", "किताब", "पढ़ता", "हूँ"]
    assert words("தமிழ் மொழி") == ["தமிழ்", "மொழி"]
    assert words("ภาษาไทย ที่นี่") == ["ภาษาไทย", "ที่นี่"]
    assert words("don\u00b4t") == ["don", "t"]  # NFKC: a space, then a lone acute
    assert ENGLISH.terms("किताब_घर") == ["किताब", "घर", "किताब_घर"]
    assert NONE.terms("कबूतर तालाब") == ["कबूतर", "तालाब"]


def _oracle_words(folded: str) -> list[str]:
    """A letter or digit, then letters, digits and combining marks; one character at a time."""
    found: list[str] = []
    word = ""
    for ch in folded:
        if ch.isalnum() or (word and unicodedata.category(ch).startswith("M")):
            word += ch
        elif word:
            found, word = [*found, word], ""
    return [*found, word] if word else found


@settings(max_examples=300)
@given(st.text(alphabet="ab9é_-. \u0301\u093f\u094dकतब\u0e35ท\ufdd0", max_size=30))
def test_words_are_the_runs_of_letters_digits_and_marks(text: str) -> None:
    folded = normalize_name(text)
    assert words(text) == _oracle_words(folded)
    assert [text[start:end] for start, end in word_spans(text)] == _oracle_words(text)


def test_an_older_revision_analyses_as_it_did() -> None:
    """What a file opened read-only at revision 2 holds: marks split, no hyphen compound."""
    legacy = Analyzer(revision="2")
    assert legacy.terms("किताब x86-64 max_connections") == [
        *["क", "त", "ब", "x86", "64", "max", "connect"],
        "max_connect",
    ]
    assert legacy != ENGLISH
    assert repr(legacy) == "Analyzer('english', revision='2')"
    with pytest.raises(InvalidArgumentError, match="revision"):
        Analyzer(revision="1")


def test_words_keep_their_marks_after_the_character_memory_starts_again() -> None:
    """The table of which characters are marks is bounded: past its size it is emptied
    and filled again, and words read the same."""
    many = "".join(chr(code) for code in range(0x20000, 0x20000 + 70_000))  # CJK ext. B on
    assert len(words(many)) > 0
    assert words("किताब தமிழ்") == ["किताब", "தமிழ்"]
