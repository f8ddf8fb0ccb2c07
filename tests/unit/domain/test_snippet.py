"""`best_window`: matches outside the chosen window are neither marked nor shown."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.snippet import MARK, best_window
from redstring.domain.tokenize import Analyzer

_WORD = re.compile(r"[^\W_]+")


def test_a_match_beyond_the_window_is_left_out() -> None:
    text = "The engine ran all night long in the cold shed, and by morning another engine"
    assert best_window(text, "engine", 24) == "...**engine** ran all night..."


def test_a_match_before_the_window_is_left_out() -> None:
    text = "An engine stood idle while far away Lovelace and Babbage argued about Lovelace"
    shown = best_window(text, "engine Lovelace Babbage", 40)
    assert "**engine**" not in shown
    assert shown.startswith("...")
    assert "**Lovelace** and **Babbage**" in shown


# What is marked is what the index matched: the passages' analyzer decides.


def test_a_german_inflection_the_index_matched_is_marked() -> None:
    german = Analyzer("german")
    assert german.terms("Häuser") == german.terms("Haus")  # the lexical channel matches them
    assert best_window("Die Häuser am See", "Haus", 80, german) == "Die **Häuser** am See"


def test_an_english_word_of_another_stem_is_not_marked() -> None:
    english = Analyzer("english")
    assert english.terms("programmer") != english.terms("program")  # BM25 does not match them
    shown = best_window("Programs by a programmer", "program", 80, english)
    assert shown == "**Programs** by a programmer"


def test_without_analysis_only_the_casefolded_word_is_marked() -> None:
    shown = best_window("ADA wrote programs for Ada", "ada program", 80, Analyzer("none"))
    assert shown == "**ADA** wrote programs for **Ada**"


def test_a_word_inside_the_texts_own_bold_is_not_marked_again() -> None:
    assert best_window("**Kill loops** early", "loops", 80) == "**Kill loops** early"
    assert best_window("**loops** and loops", "loops", 80) == "**loops** and **loops**"


# A text of words, some runs of them in the text's own `**...**`.
_VOCABULARY = [
    "Haus", "Häuser", "Hauses", "Katze", "Katzen", "und", "die", "the", "program",
    "programs", "programmer", "loops", "loop", "Kill", "ADA", "Ada",
]  # fmt: skip
_WORDS = st.lists(st.sampled_from(_VOCABULARY), min_size=1, max_size=4)
_RUNS = st.lists(st.tuples(_WORDS, st.booleans()), min_size=1, max_size=6)


def _bold_words(shown: str) -> list[tuple[str, bool]]:
    """Each word of `shown` and whether it reads bold, every `**` toggling bold."""
    return [
        (word, position % 2 == 1)
        for position, piece in enumerate(shown.split(MARK))
        for word in _WORD.findall(piece)
    ]


@settings(deadline=None, max_examples=300)
@given(
    runs=_RUNS,
    query=_WORDS,
    language=st.sampled_from(["english", "german", "none"]),
)
def test_exactly_the_matched_words_and_the_texts_own_bold_read_bold(
    runs: list[tuple[list[str], bool]], query: list[str], language: str
) -> None:
    analyzer = Analyzer(language)
    asked = set(analyzer.terms(" ".join(query)))
    text = " ".join(f"{MARK}{' '.join(run)}{MARK}" if bold else " ".join(run) for run, bold in runs)
    expected = [
        (word, bold or bool(asked & set(analyzer.terms(word))))
        for run, bold in runs
        for word in run
    ]
    shown = best_window(text, " ".join(query), len(text), analyzer)
    assert _bold_words(shown) == expected, shown


def test_a_decomposed_word_is_marked_on_its_own_characters() -> None:
    """ "cafe" and a combining acute is the word BM25 counted for "café": marked whole."""
    decomposed = "The cafe\u0301 serves e\u0301tude pieces."
    assert (
        best_window(decomposed, "café étude", 80)
        == "The **cafe\u0301** serves **e\u0301tude** pieces."
    )
    assert best_window("The caf\u00e9 serves", "cafe\u0301", 80) == "The **caf\u00e9** serves"


def test_a_word_with_vowel_signs_is_marked_whole() -> None:
    text = "मैं हर दिन एक किताब पढ़ता हूँ।"
    assert best_window(text, "किताब", 80) == "मैं हर दिन एक **किताब** पढ़ता हूँ।"
    assert MARK not in best_window("कबूतर तालाब के पास", "किताब", 80)
