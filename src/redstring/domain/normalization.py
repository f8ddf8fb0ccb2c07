"""The library's one normalisation of names.

Every comparison of names (ids, blocking keys, similarity) goes through
`normalize_name`, so two subsystems can never disagree about whether two
spellings are the same name.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from anyascii import anyascii

#: A run of characters that are neither letters nor digits (underscore included).
_NOT_WORD = re.compile(r"[\W_]+")
#: Apostrophes join rather than split ("O'Brien" -> "obrien").
_APOSTROPHES = frozenset("'\u2019\u02bc")
#: A superscript two or three written right after a letter: an exponent ("ft²").
_EXPONENT = re.compile(r"(?<=[^\W\d_])[\u00b2\u00b3]")
#: The word each exponent is read as.
_EXPONENT_WORDS = {"\u00b2": " square ", "\u00b3": " cubic "}


def normalize_name(name: str) -> str:
    """`name` in NFKC, casefolded, stripped, with runs of whitespace made one space.

    Total: any string maps to a string, a blank one to `""`.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return " ".join(folded.split())


def matching_form(name: str) -> str:
    """`normalize_name(name)` with accents folded and punctuation made space.

    The form names are *matched* in (blocking keys, lexical similarity): NFKD,
    combining marks dropped ("Lovelacé" -> "lovelace"), then every run of
    characters that are neither letters nor digits made one space ("Lovelace,
    Ada" -> "lovelace ada", "A.B." -> "a b"); apostrophes are dropped
    ("O'Brien" -> "obrien"). Latin letters with no decomposition are spelled
    in ASCII ("Łódź" -> "lodz", "Straße" -> "strasse"), and a word of two or
    more letters none of them Latin is transliterated (anyascii: "Москва" ->
    "moskva", "ルワンダ" -> "ruwanda"), Chinese characters aside (they keep
    their own form: their readings collide). A lone non-Latin letter, or one
    inside a Latin word ("µm", "Ω"), is kept. A superscript two or three
    right after a letter is an exponent, read as its English word ("ft²" ->
    "ft square", "m³" -> "m cubic"); after a digit it is a digit ("10²" -> "102").
    Total: a blank or all-punctuation name gives `""`. Ids still use
    `normalize_name`, so this form can change without moving any id.
    """
    return _matching_form(name)


def matching_tokens(name: str) -> tuple[str, ...]:
    """The space-separated tokens of `matching_form(name)`, in order, repeats kept."""
    return _matching_tokens(name)


@lru_cache(maxsize=1 << 17)
def _matching_form(name: str) -> str:
    folded = normalize_name(name if name.isascii() else _EXPONENT.sub(_exponent_word, name))
    if folded.isascii():  # nothing to decompose: the common case, kept fast
        kept = folded.replace("'", "")
    else:
        kept = " ".join(_in_ascii(word) for word in _words(folded))
    return " ".join(_NOT_WORD.sub(" ", kept).split())


def _exponent_word(exponent: re.Match[str]) -> str:
    return _EXPONENT_WORDS[exponent.group()]


def _words(folded: str) -> list[str]:
    """The runs of letters, digits and combining marks of `folded`, apostrophes dropped."""
    words: list[str] = []
    word: list[str] = []
    for ch in folded:
        if ch in _APOSTROPHES:
            continue
        if ch.isalnum() or unicodedata.category(ch)[0] == "M":
            word.append(ch)
        elif word:
            words.append("".join(word))
            word = []
    if word:
        words.append("".join(word))
    return words


def _in_ascii(word: str) -> str:
    """One word of a folded name, accents dropped and spelled in ASCII where that is safe."""
    letters = [ch for ch in word if ch.isalpha()]
    if len(letters) >= 2 and not any(_is_latin(ch) for ch in letters):
        word = "".join(ch if _is_chinese(ch) else anyascii(ch) for ch in word)
    decomposed = unicodedata.normalize("NFKD", word)
    return (
        "".join(
            ch if ch.isascii() or not _is_latin(ch) else anyascii(ch)
            for ch in decomposed
            if not unicodedata.combining(ch)
        )
        .casefold()
        .replace("'", "")
    )


def written_in_another_script(text: str) -> bool:
    """Whether `text` has two or more letters and most of them are not Latin ("Москва",
    "ルワンダ"; not "Łódź", "µm" or "σ")."""
    if text.isascii():
        return False
    letters = [ch for ch in text if ch.isalpha()]
    other = sum(1 for ch in letters if not _is_latin(ch))
    return other >= 2 and 2 * other > len(letters)


def _is_latin(ch: str) -> bool:
    return ch.isascii() or unicodedata.name(ch, "").startswith("LATIN ")


def _is_chinese(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith("CJK ")


@lru_cache(maxsize=1 << 17)
def _matching_tokens(name: str) -> tuple[str, ...]:
    return tuple(_matching_form(name).split())
