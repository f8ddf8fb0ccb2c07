"""Legal-form words of company names ("Ltd", "Corporation"), one fact for the library.

Consolidation sets them aside when it compares two names (ADR 0033); blocking
never makes a key of them (ADR 0070), because "inc" or "corp" would file a
large share of a tenant under one key. `KEYLESS_TOKENS` adds the function
words that carry no identity either.
"""

from __future__ import annotations

#: Legal-form words, each mapped to one canonical spelling.
LEGAL_SUFFIXES: dict[str, str] = {
    "ltd": "ltd",
    "limited": "ltd",
    "inc": "inc",
    "incorporated": "inc",
    "corp": "corp",
    "corporation": "corp",
    "co": "co",
    "company": "co",
    "llc": "llc",
    "llp": "llp",
    "lp": "lp",
    "plc": "plc",
    "gmbh": "gmbh",
    "ag": "ag",
    "sa": "sa",
    "sarl": "sarl",
    "bv": "bv",
    "nv": "nv",
    "pty": "pty",
    "oy": "oy",
    "ab": "ab",
    "kk": "kk",
    "srl": "srl",
    "spa": "spa",
}

#: Tokens that never make a key and never count as uncovered: legal forms and function words.
KEYLESS_TOKENS: frozenset[str] = frozenset(LEGAL_SUFFIXES) | {
    "the",
    "of",
    "and",
    "for",
    "a",
    "an",
}
