"""A query normalised once: the value key generation and scoring both read.

`NormalizedQuery.of(text)` puts the text in `matching_form` once and derives
everything the lexical channel needs from that one form (tokens, trigram
keys, the acronym reading). Key generation (`query_blocking_keys`) and
scoring (`lexical_score`) take this value, not a string, so a query cannot
be normalised twice on its way through the channel.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from redstring.domain.legal_forms import KEYLESS_TOKENS
from redstring.domain.ngrams import ngram_keys_of_form
from redstring.domain.normalization import matching_form, written_in_another_script

#: The longest all-capitals query token read as an acronym (and looked up as initials).
MAX_ACRONYM_LENGTH = 6
#: The longest query form (in characters) read as `short`: a code or symbol
#: ("GBP", "hr"), whose string readings are length-balanced (ADR 0205).
SHORT_QUERY_LENGTH = 3

_RAW_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class NormalizedQuery:
    """A free-text query and its matching forms; build it with `NormalizedQuery.of`.

    `text` is the query as given; `form` its `matching_form`; `tokens` the
    form's tokens in order; `words` the tokens a name must hold whole to
    hold every query word (all but legal forms and function words of two
    letters or more; none when every token is one of those);
    `ngrams` the form's trigram keys; `acronym` the query's one all-capitals
    token of 2..`MAX_ACRONYM_LENGTH` letters (legal forms and function words
    aside) in matching form, or `None`; `short`
    whether the form has 1..`SHORT_QUERY_LENGTH` characters; `other_script`
    whether the text is written mostly in a script other than Latin
    (`written_in_another_script`).
    """

    text: str
    form: str
    tokens: tuple[str, ...]
    words: frozenset[str]
    ngrams: frozenset[str]
    acronym: str | None
    short: bool
    other_script: bool

    @classmethod
    def of(cls, text: str) -> NormalizedQuery:
        """Normalise `text` once. Total: a blank text gives a blank form and no tokens."""
        form = matching_form(text)
        tokens = tuple(form.split())
        telling = frozenset(t for t in tokens if len(t) == 1 or t not in KEYLESS_TOKENS)
        return cls(
            text=text,
            form=form,
            tokens=tokens,
            words=telling,
            ngrams=ngram_keys_of_form(form),
            acronym=_acronym_in(text),
            short=0 < len(form) <= SHORT_QUERY_LENGTH,
            other_script=written_in_another_script(text),
        )

    def held_by(self, name_tokens: Iterable[str]) -> bool:
        """Whether a name with these tokens (in matching form) holds every query word whole.

        Never for a blank query.
        """
        return bool(self.words) and self.words.issubset(name_tokens)


def _acronym_in(text: str) -> str | None:
    words = [w for w in _RAW_WORD.findall(text) if w.casefold() not in KEYLESS_TOKENS]
    if len(words) != 1:
        return None
    [word] = words
    if not (2 <= len(word) <= MAX_ACRONYM_LENGTH and word.isalpha() and word.isupper()):
        return None
    return matching_form(word)
