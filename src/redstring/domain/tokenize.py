"""The text analysis of the chunk corpus: text to the terms BM25 counts.

An `Analyzer` is named by a language: a Snowball stemmer (PyStemmer) of that
language and, for English, a short stopword list; or `"none"`, the words as
written. A chunk store indexes the terms its analyzer gives and records the
language with the index; a query is analysed by the same analyzer, so both
sides meet on the same terms.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Final

import Stemmer  # type: ignore[import-not-found]  # PyStemmer ships no type hints

from redstring.domain.errors import (
    AnalysisMismatchError,
    CorruptSettingError,
    InvalidArgumentError,
)
from redstring.domain.normalization import normalize_name

#: The language a new index is analysed in.
DEFAULT_LANGUAGE: Final = "english"
#: The language name of no analysis: casefolded words as written, nothing removed.
NO_ANALYSIS: Final = "none"
#: Every language an index can be analysed in.
LANGUAGES: Final = frozenset(Stemmer.algorithms()) | {NO_ANALYSIS}
#: What a database records for postings written before text analysis was a
#: setting (casefolded words, a longer stopword list): they are analysed again on migration.
UNANALYSED: Final = "unanalysed"

#: English function words dropped before stemming: Lucene's English stop set
#: (also bm25s's "en" list), plus "s" and "t", what is left of "Ada's" and
#: "don't" once the apostrophe splits the word.
ENGLISH_STOPWORDS: Final = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
        "s",
        "t",
    ]
)

#: What `_shadow` writes for a combining mark: a noncharacter, itself written as a space.
_MARK: Final = "\ufdd0"
#: A word: a Unicode letter or digit, then a run of letters, digits (underscore splits
#: words) and the combining marks (category M) written with them: a vowel sign or virama
#: of Devanagari, Tamil or Thai is part of its word (`किताब` is one word, not `क`, `त`,
#: `ब`), and a mark after a space begins none ("don´t" is `don`, `t`). Read on `_shadow`.
_W = rf"[^\W_](?:[^\W_]|{_MARK})*+"
_WORD = re.compile(_W)
#: Where a word starts: after no letter, digit or mark.
_START = rf"(?<![^\W_])(?<!{_MARK})"
#: Revision 2's word: a run of letters and digits, a mark splitting it.
_LETTERS = re.compile(r"[^\W_]+")
#: A compound: words joined by `_` or `-` and no space, as identifiers are written
#: (`max_connections`, `x86-64`), a compound joined by `-` alone counting only when a
#: word of it holds a digit (`utf-8`, `carbon-14`; prose writes `silver-white` and
#: `well-known`); and a path: words joined by `_ . / : -` with at least one of `. / :`
#: (`os.path.join`, `docs/how-to/build_policy.md`), which holds its compounds. Joiners
#: between digits alone join nothing (`6.94`, `10:30`, `2-3`). Each starts where a word
#: starts and takes its words whole (possessive), so a word that joins nothing is tried
#: once, not once per character with every shorter prefix: the same matches, four times faster.
_COMPOUND = re.compile(rf"{_START}{_W}(?:[_-]+{_W})+")
_PATH = re.compile(rf"{_START}{_W}(?:[_./:-]+{_W})+")
#: The same compounds and paths in text holding no combining mark (the common case): a
#: word is a plain run of letters and digits, matched several times faster.
_PLAIN_COMPOUND = re.compile(r"(?<![^\W_])[^\W_]++(?:[_-]+[^\W_]++)+")
_PLAIN_PATH = re.compile(r"(?<![^\W_])[^\W_]++(?:[_./:-]+[^\W_]++)+")
_PATH_JOINER = re.compile(r"[./:]")
#: Words joined by hyphens alone, and a digit.
_HYPHEN_ONLY = re.compile(r"[^_./:]+")
_DIGIT = re.compile(r"\d")
#: Digits and joiners only: a number, a date or a time (`6.94`, `10:30`), no compound.
_NUMERAL = re.compile(r"[\d_./:-]+")
#: What joins the words of a compound term.
COMPOUND_JOINER: Final = "_"
#: The revision of the analysis an index records beside its language: 2 adds each
#: compound as a term of its own; 3 keeps combining marks in their words and joins
#: words holding a digit by `-` (`x86-64`). An index holding chunks of another is
#: analysed again.
ANALYSIS_REVISION: Final = "3"
#: The revision a file opened read-only that holds chunks of an older one is searched
#: in: its queries must meet the terms it holds, and it cannot be analysed again.
LEGACY_REVISION: Final = "2"
#: The revisions an analyzer can analyse in.
REVISIONS: Final = frozenset({LEGACY_REVISION, ANALYSIS_REVISION})
#: For ASCII text, every character `_LETTERS` does not match made a space: the words are then
#: what `str.split` gives, several times faster than the regex (B101).
_ASCII_SEPARATORS = {code: " " for code in range(128) if not _LETTERS.fullmatch(chr(code))}
#: Words whose stems one analyzer remembers; past this the memory starts again.
_REMEMBERED_WORDS = 1 << 18
#: Characters whose kind `_MarksAsLetters` remembers; past this the memory starts again.
_REMEMBERED_CHARACTERS = 1 << 16


class _MarksAsLetters(dict[int, int | str]):
    """A `str.translate` table writing each combining mark as `_MARK` (and `_MARK` as a
    space), every other character as itself, filled on first sight: text the patterns
    above read with marks inside words, at the same offsets."""

    def __missing__(self, code: int) -> int | str:
        if len(self) >= _REMEMBERED_CHARACTERS:
            self.clear()
        character = chr(code)
        kind: int | str = code
        if character == _MARK:
            kind = " "
        elif unicodedata.category(character).startswith("M"):
            kind = _MARK
        self[code] = kind
        return kind


_MARKS_AS_LETTERS = _MarksAsLetters()


def words(text: str) -> list[str]:
    """The words of `text`, in order: `normalize_name` (NFKC, casefold), then
    runs of letters, digits and the combining marks after them. Total: a blank text
    gives `[]`."""
    return _words_of(normalize_name(text))


def word_spans(text: str) -> list[tuple[int, int]]:
    """Where each word of `text` as written lies: a letter or digit, then letters,
    digits and combining marks, so a word in decomposed Unicode (`cafe` and a
    combining acute) is one span whose `normalize_name` is the word `words` gives.
    Total: a blank text gives `[]`."""
    return [found.span() for found in _WORD.finditer(_shadow(text))]


def _shadow(text: str) -> str:
    """`text` with each combining mark written as `_MARK`, at the same offsets."""
    return text if text.isascii() else text.translate(_MARKS_AS_LETTERS)


def _words_of(folded: str, shadow: str | None = None) -> list[str]:
    """The words of `folded`; `shadow` is its `_shadow`, when already made."""
    if folded.isascii():
        return folded.translate(_ASCII_SEPARATORS).split()
    shadow = _shadow(folded) if shadow is None else shadow
    if _MARK not in shadow:
        return _LETTERS.findall(folded)
    return [folded[found.start() : found.end()] for found in _WORD.finditer(shadow)]


def _letter_words_of(folded: str, _shadow: str | None = None) -> list[str]:
    """Revision 2's words: runs of letters and digits, a combining mark splitting them."""
    if folded.isascii():
        return folded.translate(_ASCII_SEPARATORS).split()
    return _LETTERS.findall(folded)


def document_length(counts: Mapping[str, int]) -> int:
    """BM25's length of a text of term `counts`: its words; a compound term repeats
    words already counted, so it adds nothing (as Lucene leaves overlapping tokens
    out of a field's length)."""
    return sum(n for term, n in counts.items() if COMPOUND_JOINER not in term)


def _compounds(folded: str, shadow: str | None = None) -> list[list[str]]:
    """The words of each compound and path of `folded` (casefolded) that is not a numeral;
    `shadow` is its `_shadow`, when already made."""
    shadow = _shadow(folded) if shadow is None else shadow
    marked = _MARK in shadow
    compound, path = (_COMPOUND, _PATH) if marked else (_PLAIN_COMPOUND, _PLAIN_PATH)
    # A hyphen joins only words holding a digit: no digit, no hyphen compound to look for.
    joined = "_" in folded or ("-" in folded and _DIGIT.search(folded) is not None)
    found = [
        *(compound.finditer(shadow) if joined else ()),
        *(match for match in path.finditer(shadow) if _PATH_JOINER.search(match.group())),
    ]
    return [
        _words_of(folded[match.start() : match.end()])
        for match in found
        if not _NUMERAL.fullmatch(match.group()) and _joins(match.group())
    ]


def _joins(compound: str) -> bool:
    """Whether `compound` is a term: joined by `_`, `.`, `/` or `:`, or by `-` alone
    with a digit in it (`x86-64`, not `well-known`)."""
    return not _HYPHEN_ONLY.fullmatch(compound) or _DIGIT.search(compound) is not None


#: Revision 2's compounds: words joined by `_`, and paths; a hyphen alone joined nothing.
_LETTER_COMPOUND = re.compile(r"(?<![^\W_])[^\W_]++(?:_+[^\W_]++)+")
_LETTER_PATH = re.compile(r"(?<![^\W_])[^\W_]++(?:[_./:-]+[^\W_]++)+")


def _letter_compounds(folded: str, _shadow: str | None = None) -> list[list[str]]:
    found = [
        *(_LETTER_COMPOUND.findall(folded) if "_" in folded else ()),
        *(path for path in _LETTER_PATH.findall(folded) if _PATH_JOINER.search(path)),
    ]
    return [_letter_words_of(match) for match in found if not _NUMERAL.fullmatch(match)]


class _Stems(dict[str, str]):
    """Word to term, filled on first sight: the stem, or `""` for a stopword."""

    def __init__(self, stemmer: Stemmer.Stemmer, stopwords: frozenset[str]) -> None:
        super().__init__()
        self._stem = stemmer.stemWord
        self._stopwords = stopwords

    def __missing__(self, word: str) -> str:
        if len(self) >= _REMEMBERED_WORDS:
            self.clear()
        term = "" if word in self._stopwords else self._stem(word)
        self[word] = term
        return term


class Analyzer:
    """The terms of a text in one language, as an index and its queries count them.

    `language` is a Snowball language (`LANGUAGES`) or `"none"`; `revision` the
    analysis's (`REVISIONS`: the current `ANALYSIS_REVISION`, or `LEGACY_REVISION`
    for a file opened read-only that still holds terms of an older one). Equal when the
    languages and revisions are. Each word's stem is computed once and remembered.
    """

    __slots__ = ("_compounds", "_stems", "_words", "language", "revision")

    def __init__(
        self, language: str = DEFAULT_LANGUAGE, *, revision: str = ANALYSIS_REVISION
    ) -> None:
        if not isinstance(language, str) or language.casefold() not in LANGUAGES:
            raise InvalidArgumentError(
                name="language",
                value=language,
                requirement=f"one of {', '.join(sorted(LANGUAGES))} ({NO_ANALYSIS!r}: no stemming)",
            )
        if revision not in REVISIONS:
            raise InvalidArgumentError(
                name="revision",
                value=revision,
                requirement=f"one of {', '.join(sorted(REVISIONS))}",
            )
        self.language: str = language.casefold()
        self.revision: str = revision
        current = revision == ANALYSIS_REVISION
        self._words = _words_of if current else _letter_words_of
        self._compounds = _compounds if current else _letter_compounds
        self._stems: _Stems | None = None
        if self.language != NO_ANALYSIS:
            stopwords = ENGLISH_STOPWORDS if self.language == "english" else frozenset()
            self._stems = _Stems(Stemmer.Stemmer(self.language), stopwords)

    def terms(self, text: str) -> list[str]:
        """The terms of `text`, repeats kept: its `words` in order, stopwords dropped,
        each stemmed; then each of its compounds (words joined by `_`, or by `-` when
        one holds a digit) and paths (joined by `. / :` too, and `-` beside them) as one
        term, its words stemmed (stopwords kept) and joined by `COMPOUND_JOINER`, so an
        identifier such as `max_connections`, `x86-64` or `os.path.join` is matched
        whole as well as by its words. Total: a blank text gives `[]`."""
        folded = normalize_name(text)
        shadow = folded if self.revision != ANALYSIS_REVISION else _shadow(folded)
        found = self._words(folded, shadow)
        joined = self._compounds(folded, shadow) if len(found) > 1 else []
        if self._stems is None:
            return found + [COMPOUND_JOINER.join(parts) for parts in joined]
        stems = self._stems
        terms = [term for term in map(stems.__getitem__, found) if term]
        terms += [COMPOUND_JOINER.join(stems[word] or word for word in parts) for parts in joined]
        return terms

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Analyzer)
            and other.language == self.language
            and other.revision == self.revision
        )

    def __hash__(self) -> int:
        return hash((self.language, self.revision))

    def __repr__(self) -> str:
        if self.revision == ANALYSIS_REVISION:
            return f"Analyzer({self.language!r})"
        return f"Analyzer({self.language!r}, revision={self.revision!r})"


def settled_language(
    asked: str | None, stored: str | None, *, holds_chunks: bool, store: str, path: str
) -> str:
    """The language a chunk index is opened in: `asked`, checked against what it records.

    `stored` is the recorded language (`None`: none yet; `UNANALYSED`: postings
    to analyse again), `asked` the caller's (`None`: whatever is recorded,
    `DEFAULT_LANGUAGE` for a new or unanalysed index). An index holding
    chunks keeps its language: another one asked raises
    `AnalysisMismatchError`; an empty one takes the one asked. A recorded
    value that names no language raises `CorruptSettingError`.
    """
    language = None if asked is None else Analyzer(asked).language
    if stored is None or stored == UNANALYSED:
        return language or DEFAULT_LANGUAGE
    if stored not in LANGUAGES:
        raise CorruptSettingError(
            store=store,
            path=path,
            setting="chunks language",
            value=stored,
            expected="a language name",
        )
    if language is None:
        return stored
    if language != stored and holds_chunks:
        raise AnalysisMismatchError(store=store, stored=stored, asked=language)
    return language
