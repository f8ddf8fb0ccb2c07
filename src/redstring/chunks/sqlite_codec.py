"""The SQLite chunk store's packed columns (ADR 0220): postings blocks, term lists, bodies.

A chunk of a tenant holds a *number* (from the tenant's counter, never
reused); a term of a tenant holds one too. The postings of one term over the
chunk numbers `block * BLOCK ... block * BLOCK + BLOCK - 1` are one blob: a
width byte `w`, then each posting's slot (`number % BLOCK`, one byte,
ascending), then each posting's count as a little-endian unsigned integer of
`w` bytes. A chunk's term list is a width byte, then the gaps between its
ascending term numbers (the first from 0) in that width. Every function here
is pure and exact: `decode(encode(x)) == x` for any non-negative int64 counts.
"""

from __future__ import annotations

import json
import zlib

import numpy as np
import numpy.typing as npt

#: Chunk numbers per postings block: a slot is one byte.
BLOCK = 256

Ints = npt.NDArray[np.int64]

_WIDTHS = (1, 2, 4, 8)


def _width(values: Ints) -> int:
    top = int(values.max()) if len(values) else 0
    return next(w for w in _WIDTHS if top < 1 << (8 * w))


def _packed(values: Ints) -> bytes:
    if len(values) and int(values.min()) < 0:
        raise ValueError("packed values must not be negative")
    width = _width(values)
    return bytes([width]) + values.astype(f"<u{width}").tobytes()


def encode_block(slots: Ints, counts: Ints) -> bytes:
    """One postings block: `slots` (distinct, each in [0, BLOCK)) with their counts, any order."""
    if len(slots) != len(counts) or not len(slots):
        raise ValueError("a block holds one count per slot and at least one posting")
    order = np.argsort(slots, kind="stable")
    ordered = slots[order]
    if int(ordered[0]) < 0 or int(ordered[-1]) >= BLOCK or np.any(np.diff(ordered) == 0):
        raise ValueError("block slots must be distinct and in [0, BLOCK)")
    packed = _packed(counts[order])
    return packed[:1] + ordered.astype(np.uint8).tobytes() + packed[1:]


def decode_block(blob: bytes) -> tuple[Ints, Ints]:
    """`(slots, counts)` of a block, slots ascending."""
    width = blob[0]
    n = (len(blob) - 1) // (1 + width)
    slots = np.frombuffer(blob, dtype=np.uint8, count=n, offset=1).astype(np.int64)
    counts = np.frombuffer(blob, dtype=f"<u{width}", count=n, offset=1 + n).astype(np.int64)
    return slots, counts


def encode_terms(numbers: Ints) -> bytes:
    """A chunk's term list: its distinct term numbers, any order."""
    ordered = np.unique(numbers)
    return _packed(np.diff(ordered, prepend=0) if len(ordered) else ordered)


def decode_terms(blob: bytes) -> Ints:
    """The ascending term numbers of a term list."""
    width = blob[0]
    gaps = np.frombuffer(blob, dtype=f"<u{width}", offset=1).astype(np.int64)
    return np.cumsum(gaps)


def encode_body(body: str) -> bytes:
    """A chunk's JSON, compressed."""
    return zlib.compress(body.encode("utf-8"))


def decode_body(blob: bytes) -> bytes:
    """The JSON bytes `encode_body` was given."""
    return zlib.decompress(blob)


# -- SQL functions for migration 4 (registered by the store) -------------------


def sql_block(slots: str, counts: str) -> bytes:
    """`encode_block` over two JSON arrays (`json_group_array` results)."""
    return encode_block(
        np.array(json.loads(slots), dtype=np.int64), np.array(json.loads(counts), dtype=np.int64)
    )


def sql_terms(numbers: str | None) -> bytes:
    """`encode_terms` over a JSON array (`NULL` from an empty group: no terms)."""
    return encode_terms(np.array(json.loads(numbers or "[]"), dtype=np.int64))


def sql_body(body: str) -> bytes:
    """`encode_body`, callable from SQL."""
    return encode_body(body)
