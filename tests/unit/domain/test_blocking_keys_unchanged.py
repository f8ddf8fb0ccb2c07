"""Building blocking keys faster (B101) files every name under exactly the keys it had.

`reference_*` below is the key building as it stood before: every ASCII
letter picked one character at a time for soundex, each token's keys built
afresh, the type normalised per entity. The library's functions must give
the same keys, in the same order where they return a list, for any text.
The reference carries key scheme 4's joined and pair keys (ADR 0200) the
plain way: every ordered pair of the first four keyed tokens; and scheme 5's
whole-token keys (ADR 0350), which a query counts apart from its name keys.
"""

from __future__ import annotations

import uuid

import jellyfish
from hypothesis import example, given, settings
from hypothesis import strategies as st

from redstring import Entity, TenantId
from redstring.domain.blocking import (
    MIN_TOKEN_LENGTH,
    PREFIX_LENGTH,
    TOKEN_PREFIX_LENGTH,
    blocking_keys_for,
    name_keys_for,
    query_blocking_keys,
    query_token_keys,
    token_keys_for,
)
from redstring.domain.legal_forms import KEYLESS_TOKENS
from redstring.domain.ngrams import ngram_keys_of_form
from redstring.domain.normalization import matching_form, normalize_name
from redstring.domain.query import NormalizedQuery

TENANT = TenantId(uuid.UUID(int=7))


def reference_soundex(text: str) -> str | None:
    letters = "".join(ch for ch in text if ch.isascii() and ch.isalpha())
    return jellyfish.soundex(letters) if letters else None


def reference_name_keys(form: str) -> list[str]:
    if not form:
        return []
    tokens = form.split()
    keys: list[str | None] = [
        "n:" + form,
        "j:" + form.replace(" ", ""),
        "p:" + form[:PREFIX_LENGTH],
    ]
    code = reference_soundex(form)
    keys.append(None if code is None else "s:" + code)
    for token in tokens:
        if len(token) >= MIN_TOKEN_LENGTH and token not in KEYLESS_TOKENS:
            keys.append("k:" + token)
            keys.append("w:" + token[:TOKEN_PREFIX_LENGTH])
            token_code = reference_soundex(token)
            if token_code is not None:
                keys.append("x:" + token_code)
    initials = "".join(token[0] for token in tokens if token not in KEYLESS_TOKENS)
    keys.append("i:" + initials if len(initials) >= 2 else None)
    keyed = [t for t in tokens if len(t) >= MIN_TOKEN_LENGTH and t not in KEYLESS_TOKENS][:4]
    keys.extend(f"a:{first[0]} {other}" for first in keyed for other in keyed if other != first)
    return list(dict.fromkeys(key for key in keys if key is not None))


def reference_blocking_keys(entity: Entity) -> frozenset[str]:
    keys = {"t:" + normalize_name(entity.entity_type)}
    for name in [entity.name, *entity.aliases]:
        form = matching_form(name)
        keys.update(reference_name_keys(form))
        keys.update(ngram_keys_of_form(form))
    return frozenset(keys)


#: Letters of several scripts, accents, digits, punctuation, apostrophes and odd spaces.
TEXT = st.text(
    alphabet=st.sampled_from(
        "abcxyzABCXYZ éÉüßæøŁłİıſﬁ０１２3  \t.,'’-&_/()ÆŒ日本語Привет اليونان"
    ),
    min_size=1,
    max_size=24,
).filter(lambda text: text.strip() != "")


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT, st.lists(TEXT, max_size=3))
@example("Ada B. Lovelace", "person", ["Countess of Lovelace"])
@example("O'Brien & Sons Ltd", "Organization", ["OBRIEN"])
@example("1234 5678", "thing", [])
@example("ﬁsher Straße", "PERSON", ["Łukasz Ó'Neill"])
def test_entity_keys_equal_the_reference(name: str, kind: str, aliases: list[str]) -> None:
    entity = Entity(tenant_id=TENANT, entity_type=kind, name=name, aliases=aliases)
    assert blocking_keys_for(entity) == reference_blocking_keys(entity)


@settings(max_examples=300, deadline=None)
@given(TEXT)
@example("United Capital Intl Corp")
@example("x1 y2 zz 99")
def test_name_and_token_keys_equal_the_reference_in_order(text: str) -> None:
    form = matching_form(text)
    assert name_keys_for(text) == reference_name_keys(form)
    for token in form.split():
        code = reference_soundex(token)
        wanted = ["w:" + token[:TOKEN_PREFIX_LENGTH]] + ([] if code is None else ["x:" + code])
        assert token_keys_for(token) == wanted
    query = NormalizedQuery.of(text)
    named = [key for key in reference_name_keys(form) if not key.startswith("k:")]
    assert query_blocking_keys(query)[: len(named)] == named
    words = [key for key in reference_name_keys(form) if key.startswith("k:")]
    assert query_token_keys(query) == words


def test_a_token_keys_list_mutated_by_its_caller_does_not_change_the_next_answer() -> None:
    first = token_keys_for("lovelace")
    first.append("w:junk")
    first[0] = "w:xxxx"
    assert token_keys_for("lovelace") == ["w:love", "x:L142"]
