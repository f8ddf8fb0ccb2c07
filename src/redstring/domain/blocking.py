"""Blocking keys: the index that makes candidate generation a lookup, not a scan.

An entity is filed under a few short keys, namespaced by kind:

- `p:` the first `PREFIX_LENGTH` characters of the normalised name;
- `s:` the soundex of the whole name, after NFKD and reduction to ASCII
  letters (absent when nothing can be coded: digits-only or non-Latin names);
- `t:` the normalised entity type, so no entity is ever unblockable.

Two entities can only be compared (for merging, or for a query's lexical
channel) if they share a key. A key too broad (a soundex of one short token,
say) makes a block the size of a tenant; a key too narrow misses matches.
Coding digits, spaces or CJK with soundex would collide far too widely, which
is why letters are reduced to ASCII first and why NFKD comes *before* that
filter: decomposing "é" into "e" + a combining mark keeps its base letter.
"""

from __future__ import annotations

import unicodedata

import jellyfish

from redstring.domain.entity import Entity
from redstring.domain.normalization import normalize_name

PREFIX_LENGTH = 5
PREFIX_NAMESPACE = "p:"
SOUNDEX_NAMESPACE = "s:"
TYPE_NAMESPACE = "t:"


def prefix_key_for_name(name: str) -> str:
    """`p:` plus the first `PREFIX_LENGTH` characters of `normalize_name(name)`."""
    return PREFIX_NAMESPACE + normalize_name(name)[:PREFIX_LENGTH]


def soundex_key_for_name(name: str) -> str | None:
    """`s:` plus the soundex of the whole name, or `None` when no letter can be coded.

    The name is normalised, NFKD-decomposed, and reduced to its ASCII letters
    before coding; the whole name is coded, not its first token.
    """
    decomposed = unicodedata.normalize("NFKD", normalize_name(name))
    letters = "".join(ch for ch in decomposed if ch.isascii() and ch.isalpha())
    if not letters:
        return None
    return SOUNDEX_NAMESPACE + jellyfish.soundex(letters)


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
    """The prefix and soundex keys of one name, absent soundex dropped, no repeats."""
    keys = [prefix_key_for_name(name), soundex_key_for_name(name)]
    return list(dict.fromkeys(key for key in keys if key is not None))


def blocking_keys_for(entity: Entity) -> frozenset[str]:
    """Every key `entity` is filed under.

    The name keys of its name and of each alias (so a merged-away name still
    finds the survivor), plus its type key.
    """
    keys = {type_key(entity)}
    for name in [entity.name, *entity.aliases]:
        if name.strip():
            keys.update(name_keys_for(name))
    return frozenset(keys)


def query_blocking_keys(query: str) -> list[str]:
    """The keys a free-text query looks for candidates under.

    Prefix and soundex only, never a type key: a type key matches every entity
    of its type, which would turn candidate generation into a scan;
    `entity_types` filters candidates instead. An absent soundex is dropped; no
    key repeats; the order is stable.
    """
    return name_keys_for(query)
