"""How a query reads and how sure each channel is: the inputs of `AdaptiveFusion`.

Two kinds of fact, both computed from what a retrieval already has:

- `read_query`: how much the query text reads like prose rather than a name
  (its length in words, its share of English function words, of capitalised
  words, of upper-case letters, of letters outside the Latin script, and
  whether it has punctuation inside it);
- `channel_confidence`: how sure one channel's own answer is (its top score
  and the gap to its second);
- whether the query is a code (`NormalizedQuery.short`, "GBP", "hr"), alone
  and times the lexical top score: with a length-balanced lexical score a
  prefix of a long name no longer looks sure, so on a code a high lexical
  top means the name, alias, initials or a property hold it (ADR 0205).

`fusion_features` turns both into the fixed vector `AdaptiveFusion` weighs.
Pure and total: any string and any scores give a value; nothing here knows
which entities or passages exist.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from redstring.domain.query import NormalizedQuery

# English function words and the commonest words of a definition: the marks
# of prose. Hand-written for this purpose (not from any dictionary), short on
# purpose: a word that is also a common name part ("will", "may") is left out.
_FUNCTION_WORDS = """
    a about above across after against all also although an and another any
    are around as at be because been before being below between both but by
    can could did do does done during each either every few for from had has
    have having how however if in including into is it its itself kind like
    made make many more most much must near neither no nor not of off often
    on one only onto or other over part per same several should since so
    some something such than that the their them then there these they this
    those through thus to too type under until up upon used using usually via
    was way were what when where whether which while who whom whose why with
    within without would
"""
FUNCTION_WORDS: frozenset[str] = frozenset(_FUNCTION_WORDS.split())

#: A raw word of the query as typed (case kept): a run of letters and digits.
_RAW_WORD = re.compile(r"[^\W_]+")
#: Punctuation that separates clauses or marks a definition, not a name part.
_PROSE_PUNCTUATION = frozenset(',;:()?!"')
#: Words beyond this count all read as "long": the length feature is capped.
LENGTH_CAP = 8


@dataclass(frozen=True)
class QueryReading:
    """How one query reads. Every share is on 0..1 and 0.0 for a query with no words."""

    #: Words in the query's `matching_form`.
    words: int
    #: Share of those words in `FUNCTION_WORDS`.
    function_share: float
    #: Share of the raw words that start with a capital letter.
    capital_share: float
    #: Share of the cased letters that are upper case ("GBP" 1.0, "kWh" 1/3,
    #: "Smith" 0.2): a code reads as all capitals, a name as one per word.
    upper_share: float
    #: Share of the letters outside the Latin script.
    non_latin_share: float
    #: Whether the query holds clause punctuation (`,;:()?!"`).
    punctuated: bool


def read_query(query: str | NormalizedQuery) -> QueryReading:
    """The `QueryReading` of `query`; total (a blank query reads as all zeros).

    Given a `NormalizedQuery` it reads that value's tokens, so a retriever
    that normalised the query once does not normalise it again.
    """
    normalized = query if isinstance(query, NormalizedQuery) else NormalizedQuery.of(query)
    words = normalized.tokens
    query = normalized.text
    raw = _RAW_WORD.findall(query)
    letters = [ch for ch in query if ch.isalpha()]
    cased = [ch for ch in letters if ch.isupper() or ch.islower()]
    return QueryReading(
        words=len(words),
        function_share=_share(sum(word in FUNCTION_WORDS for word in words), len(words)),
        capital_share=_share(sum(word[0].isupper() for word in raw), len(raw)),
        upper_share=_share(sum(ch.isupper() for ch in cased), len(cased)),
        non_latin_share=_share(sum(not _is_latin(ch) for ch in letters), len(letters)),
        punctuated=any(ch in _PROSE_PUNCTUATION for ch in query),
    )


def _share(count: int, total: int) -> float:
    return count / total if total else 0.0


def _is_latin(letter: str) -> bool:
    """Basic Latin through Latin Extended-B and IPA, or Latin Extended Additional."""
    code = ord(letter)
    return code < 0x2B0 or 0x1E00 <= code < 0x1F00


@dataclass(frozen=True)
class ChannelConfidence:
    """How sure one channel's answer is, read from its own scores (0..1 each)."""

    #: The channel's best score, 0.0 when it ranked nothing.
    top: float
    #: Its best score minus its second, 0.0 when it ranked fewer than two.
    gap: float


def channel_confidence[IdT: Hashable](
    ranking: Sequence[tuple[IdT, float]],
) -> ChannelConfidence:
    """The confidence of a best-first `(id, score)` ranking with scores on 0..1."""
    if not ranking:
        return ChannelConfidence(top=0.0, gap=0.0)
    top = ranking[0][1]
    second = ranking[1][1] if len(ranking) > 1 else top
    return ChannelConfidence(top=top, gap=max(0.0, top - second))


#: The names of `fusion_features`' entries, in order (for ADRs and reports).
FEATURE_NAMES: tuple[str, ...] = (
    "bias",
    "function_share",
    "length",
    "capital_share",
    "upper_share",
    "non_latin_share",
    "punctuated",
    "lexical_top",
    "lexical_gap",
    "semantic_top",
    "semantic_gap",
    "agree",
    "short",
    "short_lexical_top",
)


def fusion_features[IdT: Hashable](
    query: str | NormalizedQuery,
    semantic: Sequence[tuple[IdT, float]],
    lexical: Sequence[tuple[IdT, float]],
) -> tuple[float, ...]:
    """The vector `AdaptiveFusion` weighs, named by `FEATURE_NAMES`, each on 0..1.

    `length` is `min(words, LENGTH_CAP) / LENGTH_CAP`; `agree` is 1.0 when both
    channels ranked something and put the same id first; `short` is 1.0 for
    a code (`NormalizedQuery.short`) and `short_lexical_top` the lexical top
    score of a code, else 0.0. The channels' scores are read as given (the
    caller puts each on 0..1). A text is normalised once, here.
    """
    normalized = query if isinstance(query, NormalizedQuery) else NormalizedQuery.of(query)
    reading = read_query(normalized)
    sem = channel_confidence(semantic)
    lex = channel_confidence(lexical)
    agree = bool(semantic) and bool(lexical) and semantic[0][0] == lexical[0][0]
    return (
        1.0,
        reading.function_share,
        min(reading.words, LENGTH_CAP) / LENGTH_CAP,
        reading.capital_share,
        reading.upper_share,
        reading.non_latin_share,
        float(reading.punctuated),
        lex.top,
        lex.gap,
        sem.top,
        sem.gap,
        float(agree),
        float(normalized.short),
        lex.top if normalized.short else 0.0,
    )
