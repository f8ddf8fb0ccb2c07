"""Blocking keys: the index that makes candidate generation a lookup, not a scan.

Key scheme version `KEY_VERSION` (ADR 0070, 0115, 0200 and 0350, amending 0003). Names are
keyed in their `matching_form` (accents folded, punctuation made space). An
entity is filed under short keys, namespaced by kind, for its name and each
alias:

- `n:` the whole matching form (an exact name is one small block, ADR 0115);
- `j:` the whole matching form with its spaces removed ("JohnSmith", ADR 0200);
- `p:` the first `PREFIX_LENGTH` characters of the whole name;
- `s:` the soundex of the whole name's ASCII letters (absent when none);
- `k:` each keyed token whole: its block's size is the token's document
  frequency among the tenant's names (ADR 0350);
- `w:` the first `TOKEN_PREFIX_LENGTH` characters of each keyed token;
- `x:` the soundex of each keyed token's ASCII letters (absent when none);
- `i:` the initials of the keyed tokens, when there are at least two;
- `a:` the initial of one keyed token, a space and another whole keyed token,
  for each ordered pair of the first `MAX_PAIR_TOKENS` keyed tokens ("John
  Smith" -> `a:j smith`, `a:s john`): a block of one surname under one
  initial, small where a token's own block is not (ADR 0200);
- `g:` each distinct trigram of the padded form (`domain/ngrams.py`);
- `t:` the normalised entity type (never looked up by a query).

A keyed token has at least `MIN_TOKEN_LENGTH` characters and is not in
`KEYLESS_TOKENS` (legal forms and function words, which would file a large
share of a tenant under one key). A query looks up the same name keys, plus
`i:` + each of its short alphabetic tokens, so "UCI" finds "United Capital
Intl Corp", and its `a:` pairs take a one-letter token as an initial too
("J. Smith" -> `a:j smith`); its trigram keys are looked up apart
(`query_ngram_keys`), and so are its `k:` keys (`query_token_keys`), which
are counted for rarity and read for the entities holding every query word.
Stores cap every block at `MAX_BLOCK_MEMBERS` (the
port says how).
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache

import jellyfish

from redstring.domain.entity import Entity
from redstring.domain.legal_forms import KEYLESS_TOKENS
from redstring.domain.ngrams import ngram_keys_of_form
from redstring.domain.normalization import matching_form, normalize_name
from redstring.domain.query import MAX_ACRONYM_LENGTH, NormalizedQuery

#: The version of this key scheme; stores record it beside their index (ADR 0070, 0115,
#: 0430: names in other scripts keyed in their ASCII spelling; 0635: exponents read as words).
KEY_VERSION = 7

PREFIX_LENGTH = 5
TOKEN_PREFIX_LENGTH = 4
MIN_TOKEN_LENGTH = 2
#: The keyed tokens (of a name; any tokens of a query) that make `a:` pair keys.
MAX_PAIR_TOKENS = 4
#: The most entities a store returns for one key of one tenant (ADR 0070).
MAX_BLOCK_MEMBERS = 1000
#: The most ids per key the lexical channel asks for (at most MAX_BLOCK_MEMBERS), and
#: the most candidates sharing keys it fetches and scores per query (ADR 0070).
LEXICAL_BLOCK_LIMIT = 250
LEXICAL_CANDIDATE_LIMIT = 50

_ID_MASK = (1 << 128) - 1
#: Everything but the ASCII letters (exactly the characters `isascii() and isalpha()` keeps).
_NOT_ASCII_LETTER = re.compile("[^A-Za-z]+")
#: The trigram keys of a form, uncached: an ingest's forms are mostly new, and filing them
#: in `ngram_keys_of_form`'s cache would hold a frozenset per stored name (B101).
_ngram_keys_uncached = ngram_keys_of_form.__wrapped__

EXACT_NAMESPACE = "n:"
WORD_NAMESPACE = "k:"
JOINED_NAMESPACE = "j:"
PAIR_NAMESPACE = "a:"
PREFIX_NAMESPACE = "p:"
SOUNDEX_NAMESPACE = "s:"
TOKEN_PREFIX_NAMESPACE = "w:"
TOKEN_SOUNDEX_NAMESPACE = "x:"
INITIALS_NAMESPACE = "i:"
TYPE_NAMESPACE = "t:"


def prefix_key_for_name(name: str) -> str:
    """`p:` plus the first `PREFIX_LENGTH` characters of `matching_form(name)`."""
    return PREFIX_NAMESPACE + matching_form(name)[:PREFIX_LENGTH]


def exact_key_for_name(name: str) -> str | None:
    """`n:` plus the whole `matching_form(name)`, or `None` when that is blank."""
    return _exact_key(matching_form(name))


def _exact_key(form: str) -> str | None:
    return EXACT_NAMESPACE + form if form else None


def _soundex(text: str) -> str | None:
    letters = _NOT_ASCII_LETTER.sub("", text)
    return jellyfish.soundex(letters) if letters else None


def soundex_key_for_name(name: str) -> str | None:
    """`s:` plus the soundex of the ASCII letters of `matching_form(name)`, or `None`.

    The whole name is coded, not its first token; `None` when no letter can
    be coded (digits only, non-Latin script).
    """
    return _soundex_key(matching_form(name))


def _soundex_key(form: str) -> str | None:
    code = _soundex(form)
    return None if code is None else SOUNDEX_NAMESPACE + code


def _keyed(tokens: tuple[str, ...]) -> list[str]:
    """The tokens that make keys: `MIN_TOKEN_LENGTH`+ long, not in `KEYLESS_TOKENS`."""
    return [t for t in tokens if len(t) >= MIN_TOKEN_LENGTH and t not in KEYLESS_TOKENS]


def token_keys_for(token: str) -> list[str]:
    """The `w:` prefix key and, when codable, the `x:` soundex key of one token."""
    return list(_token_keys(token))


@lru_cache(maxsize=1 << 16)
def _token_keys(token: str) -> tuple[str, ...]:
    """`token_keys_for`, once per distinct token (tokens repeat across a tenant's names)."""
    prefix = TOKEN_PREFIX_NAMESPACE + token[:TOKEN_PREFIX_LENGTH]
    code = _soundex(token)
    return (prefix,) if code is None else (prefix, TOKEN_SOUNDEX_NAMESPACE + code)


def initials_of(name: str) -> str:
    """The first letters of the tokens of `name` that are not in `KEYLESS_TOKENS`.

    "Monis & Lapienis International" -> "mli"; legal forms and function words
    do not count, so "United Capital Intl Corp" -> "uci".
    """
    return initials_of_tokens(tuple(matching_form(name).split()))


def initials_of_tokens(tokens: tuple[str, ...]) -> str:
    """`initials_of` for tokens already in matching form."""
    return "".join(token[0] for token in tokens if token not in KEYLESS_TOKENS)


def initials_key_for_name(name: str) -> str | None:
    """`i:` plus `initials_of(name)`, or `None` when that has fewer than two letters."""
    return _initials_key(tuple(matching_form(name).split()))


def _initials_key(tokens: tuple[str, ...]) -> str | None:
    initials = initials_of_tokens(tokens)
    return INITIALS_NAMESPACE + initials if len(initials) >= 2 else None


@lru_cache(maxsize=4096)
def type_key_for(entity_type: str) -> str:
    """`t:` plus the normalised entity type."""
    return TYPE_NAMESPACE + normalize_name(entity_type)


def prefix_key(entity: Entity) -> str:
    """`prefix_key_for_name` of the entity's name."""
    return prefix_key_for_name(entity.name)


def soundex_key(entity: Entity) -> str | None:
    """`soundex_key_for_name` of the entity's name."""
    return soundex_key_for_name(entity.name)


def type_key(entity: Entity) -> str:
    """`type_key_for` of the entity's type."""
    return type_key_for(entity.entity_type)


def name_keys_for(name: str) -> list[str]:
    """Every name key of one name (exact, joined, whole-name, per-token, initials, pairs); stable.

    No key repeats.

    A blank name (after matching normalisation) has no keys. Trigram keys are
    not name keys: `blocking_keys_for` files them beside these.
    """
    form = matching_form(name)
    return _name_keys(form, tuple(form.split()))


def _name_keys(form: str, tokens: tuple[str, ...]) -> list[str]:
    if not form:
        return []
    return list(dict.fromkeys(key for key in _name_key_parts(form, tokens) if key is not None))


def _name_key_parts(form: str, tokens: tuple[str, ...]) -> list[str | None]:
    """The name keys of a non-blank form, in order; repeats and `None` (no key) left in."""
    keyed = _keyed(tokens)
    keys: list[str | None] = [
        _exact_key(form),
        JOINED_NAMESPACE + "".join(tokens),
        PREFIX_NAMESPACE + form[:PREFIX_LENGTH],
        _soundex_key(form),
    ]
    for token in keyed:
        keys.append(WORD_NAMESPACE + token)
        keys.extend(_token_keys(token))
    keys.append(_initials_key(tokens))
    keys.extend(pair_keys(keyed[:MAX_PAIR_TOKENS], keyed[:MAX_PAIR_TOKENS]))
    return keys


def pair_keys(initials: Sequence[str], tokens: Sequence[str]) -> list[str]:
    """`a:` + the initial of each of `initials` + " " + each other token of `tokens`; stable.

    A pair of equal tokens makes no key ("Smith Smith" is not under `a:s smith`).
    """
    return [
        PAIR_NAMESPACE + first[0] + " " + other
        for first in initials
        for other in tokens
        if other != first
    ]


def blocking_keys_for(entity: Entity) -> frozenset[str]:
    """Every key `entity` is filed under.

    The name keys and trigram keys of its name and of each alias (so a
    merged-away name still finds the survivor), plus its type key.
    """
    keys: set[str | None] = {type_key(entity)}
    for name in [entity.name, *entity.aliases]:
        form = matching_form(name)
        if form:  # a blank form has no name keys and no trigrams
            keys.update(_name_key_parts(form, tuple(form.split())))
            keys.update(_ngram_keys_uncached(form))
    return frozenset(filter(None, keys))


def query_blocking_keys(query: NormalizedQuery) -> list[str]:
    """The keys a free-text query looks for candidates under, trigrams aside.

    Its name keys (exact, joined, whole-name, per-token, initials, pairs;
    the whole-token `k:` keys aside, `query_token_keys`),
    plus `i:` + each alphabetic token of 2..`MAX_ACRONYM_LENGTH` characters
    not in `KEYLESS_TOKENS`, so an acronym finds its expansion, plus the
    `a:` pairs whose initial is any of its first `MAX_PAIR_TOKENS` tokens
    not in `KEYLESS_TOKENS` (one letter included: "J. Smith"). Never a type key:
    that would hand back a whole type; `entity_types` filters candidates
    instead. No key repeats; the order is stable.
    """
    keys = [k for k in _name_keys(query.form, query.tokens) if not k.startswith(WORD_NAMESPACE)]
    for token in query.tokens:
        short = MIN_TOKEN_LENGTH <= len(token) <= MAX_ACRONYM_LENGTH
        if short and token.isalpha() and token not in KEYLESS_TOKENS:
            keys.append(INITIALS_NAMESPACE + token)
    initials = [token for token in query.tokens if token not in KEYLESS_TOKENS]
    keys.extend(pair_keys(initials[:MAX_PAIR_TOKENS], _keyed(query.tokens)[:MAX_PAIR_TOKENS]))
    return list(dict.fromkeys(keys))


def query_exact_key(query: NormalizedQuery) -> str | None:
    """The `n:` key of the query's whole form: the entities it names exactly."""
    return _exact_key(query.form)


def query_token_keys(query: NormalizedQuery) -> list[str]:
    """The `k:` keys of the query's keyed tokens, each once, in query order.

    A block's size is how many of the tenant's entities hold that token whole
    in a name or alias: the count its rarity is weighed by (ADR 0350).
    """
    return list(dict.fromkeys(WORD_NAMESPACE + token for token in _keyed(query.tokens)))


def query_ngram_keys(query: NormalizedQuery) -> list[str]:
    """The query's trigram keys, in key order (stable)."""
    return sorted(query.ngrams)


def shortlist(blocks: Mapping[str, Sequence[int]], limit: int) -> list[int]:
    """The at most `limit` id numbers filed under the most of `blocks`' keys, best first.

    An id under more of the query's keys shares more of its name with the
    query; ties go to the ascending id string (the retriever's tie-break, so
    a capped block and a cut shortlist keep the same entities). An id listed
    twice under one key counts once. `limit` below 1 gives `[]`.
    """
    if limit < 1:
        return []
    # A UUID's string is fixed-width lowercase hex, so ordering by its 128-bit
    # number is ordering by its string. Each candidate becomes one int,
    # (-hits << 128) | number, whose order is the shortlist's order.
    hits: Counter[int] = Counter()
    for ids in blocks.values():
        hits.update(set(ids))
    ranked = heapq.nsmallest(limit, [(-count << 128) | number for number, count in hits.items()])
    return [key & _ID_MASK for key in ranked]


def telling_blocks(
    blocks: Mapping[str, Sequence[int]], sizes: Mapping[str, int], limit: int
) -> dict[str, Sequence[int]]:
    """The blocks whose counted size (`sizes`) is at most `limit`; a larger one is too
    common to rank by (ADR 0200).

    A block read capped is its lowest ids, a sample by id rather than by name:
    counted in `shortlist`, it would rank those ids above a better match. The
    sizes are counted, not the lists' lengths, so a too-common block read
    capped at `limit` (the exact name's) is still left out.
    """
    return {key: ids for key, ids in blocks.items() if sizes[key] <= limit}


def interleave(exact: Sequence[int], sources: Sequence[Sequence[int]], limit: int) -> list[int]:
    """`exact` first, then one number from each ranked source in turn; no repeats, at most `limit`.

    So an entity named exactly as the query is never cut, and each candidate
    source keeps its best ids however long the other is (ADR 0115).
    """
    merged: dict[int, None] = dict.fromkeys(exact)
    longest = max((len(source) for source in sources), default=0)
    for at in range(longest):
        if len(merged) >= limit:
            break
        for source in sources:
            if at < len(source):
                merged.setdefault(source[at])
    return list(merged)[: max(limit, 0)]
