"""The corpus tokenizer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.tokenize import STOPWORDS, tokenize


def test_words_are_casefolded_and_repeats_kept_in_order() -> None:
    assert tokenize("Engine ENGINE engine, notes!") == ["engine", "engine", "engine", "notes"]


def test_stopwords_are_removed() -> None:
    assert tokenize("The notes of the Engine and its author") == ["notes", "engine", "author"]


def test_nfkc_folds_compatibility_forms_and_casefold_folds_sharp_s() -> None:
    # Fullwidth letters, a ligature, and German sharp s.
    assert tokenize("ＡＤＡ ﬁle Straße") == ["ada", "file", "strasse"]


def test_non_latin_scripts_are_words_too() -> None:
    assert tokenize("Ada Λάβλεϊς — Лавлейс 1843") == ["ada", "λάβλεϊσ", "лавлейс", "1843"]


def test_punctuation_and_underscores_split_words() -> None:
    assert tokenize("babbage's snake_case x-ray") == ["babbage", "snake", "case", "x", "ray"]


def test_blank_text_has_no_terms() -> None:
    assert tokenize("") == []
    assert tokenize("  \n the of ") == []


@settings(deadline=None)
@given(st.text())
def test_terms_are_never_stopwords_blank_or_containing_spaces(text: str) -> None:
    for term in tokenize(text):
        assert term
        assert term not in STOPWORDS
        assert not any(ch.isspace() for ch in term)


def reference_tokenize(text: str) -> list[str]:
    """`tokenize` as it stood before its ASCII path (B101): the regex over any text."""
    import re  # noqa: PLC0415

    from redstring.domain.normalization import normalize_name  # noqa: PLC0415

    words = re.findall(r"[^\W_]+", normalize_name(text))
    return [word for word in words if word not in STOPWORDS]


@settings(max_examples=400)
@given(st.one_of(st.text(alphabet=st.characters(max_codepoint=127)), st.text()))
def test_the_ascii_path_splits_exactly_as_the_regex_does(text: str) -> None:
    assert tokenize(text) == reference_tokenize(text)


def test_every_ascii_character_splits_or_joins_as_the_regex_says() -> None:
    every = "".join(chr(code) for code in range(128))
    assert tokenize(f"a{every}b x_y 1.5 don't") == reference_tokenize(f"a{every}b x_y 1.5 don't")
