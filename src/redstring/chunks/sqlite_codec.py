"""The SQLite chunk store's packed columns (ADR 0220): postings blocks, term lists, bodies.

A chunk of a tenant holds a *number* (from the tenant's counter, never
reused); a term of a tenant holds one too. The postings of one term over the
chunk numbers `block * BLOCK ... block * BLOCK + BLOCK - 1` are one blob: a
width byte `w`, a byte holding the number of postings less one (since schema
version 6, so a cut blob is told by its length, ADR 0360), then each
posting's slot (`number % BLOCK`, one byte, ascending), then each posting's
count as a little-endian unsigned integer of `w` bytes. A chunk's term list
is a width byte, then the gaps between its ascending term numbers (the first
from 0) in that width. Every function here is pure and exact:
`decode(encode(x)) == x` for any non-negative int64 counts, and a decoder
given a blob of another length or layout raises `ValueError`.
"""

from __future__ import annotations

import json
import zlib

import numpy as np
import numpy.typing as npt

#: Chunk numbers per postings block: a slot is one byte.
BLOCK = 256

#: The table of postings blocks, as a damaged row's report names it.
BLOCKS = "chunk_posting_blocks"

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
    ordered, packed = _ordered_block(slots, counts)
    return packed[:1] + bytes([len(ordered) - 1]) + ordered.astype(np.uint8).tobytes() + packed[1:]


def _ordered_block(slots: Ints, counts: Ints) -> tuple[Ints, bytes]:
    """The slots ascending and their counts packed (width byte first), checked."""
    if len(slots) != len(counts) or not len(slots):
        raise ValueError("a block holds one count per slot and at least one posting")
    order = np.argsort(slots, kind="stable")
    ordered = slots[order]
    if int(ordered[0]) < 0 or int(ordered[-1]) >= BLOCK or np.any(np.diff(ordered) == 0):
        raise ValueError("block slots must be distinct and in [0, BLOCK)")
    return ordered, _packed(counts[order])


def decode_block(blob: bytes) -> tuple[Ints, Ints]:
    """`(slots, counts)` of a block, slots ascending; `ValueError` for a damaged blob."""
    if not isinstance(blob, bytes) or len(blob) < 2 or blob[0] not in _WIDTHS:
        raise ValueError("its postings block has no valid header (width and count bytes)")
    width, n = blob[0], blob[1] + 1
    expected = 2 + n * (1 + width)
    if len(blob) != expected:
        raise ValueError(
            f"its postings block is {len(blob)} bytes, not the {expected} of its {n} postings"
            f" of width {width}: cut short or extended"
        )
    slots = np.frombuffer(blob, dtype=np.uint8, count=n, offset=2).astype(np.int64)
    if np.any(np.diff(slots) <= 0):
        raise ValueError("its postings block lists chunk slots out of order")
    counts = np.frombuffer(blob, dtype=f"<u{width}", count=n, offset=2 + n).astype(np.int64)
    return slots, counts


def decode_blocks(blobs: list[bytes], firsts: Ints) -> tuple[Ints, Ints] | None:
    """`(chunk numbers, counts)` of one term's blocks, in their order, as `decode_block` reads
    each (`firsts[i]`, block `i`'s first chunk number, plus each slot); `None` if any blob is
    one it would refuse."""
    if not all(isinstance(blob, bytes) and len(blob) >= 2 for blob in blobs):
        return None
    sizes = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
    data = np.frombuffer(b"".join(blobs), dtype=np.uint8)
    starts = np.cumsum(sizes) - sizes
    widths = data[starts].astype(np.int64)
    n = data[starts + 1].astype(np.int64) + 1
    if not np.isin(widths, _WIDTHS).all() or np.any(sizes != 2 + n * (1 + widths)):
        return None
    owner = np.repeat(np.arange(len(blobs)), n)  # each posting's block, by position
    within = np.arange(len(owner)) - np.repeat(np.cumsum(n) - n, n)
    slots = data[np.repeat(starts + 2, n) + within].astype(np.int64)
    if np.any((np.diff(slots) <= 0) & (owner[1:] == owner[:-1])):
        return None
    width = widths[owner]
    at = np.repeat(starts + 2 + n, n) + within * width
    counts = np.zeros(len(owner), dtype=np.int64)
    for byte in range(int(widths.max(initial=0))):  # little-endian, a byte at a time
        has = width > byte
        counts[has] |= data[at[has] + byte].astype(np.int64) << (8 * byte)
    return slots + firsts[owner], counts


def block_row(term: str | int, block: int) -> str:
    """How a damaged row report names a postings block: its term (text, or number) and block."""
    about = f"term {term!r}" if isinstance(term, str) else f"term number {term}"
    return f"{about}, block {block}"


def encode_terms(numbers: Ints) -> bytes:
    """A chunk's term list: its distinct term numbers, any order."""
    ordered = np.unique(numbers)
    return _packed(np.diff(ordered, prepend=0) if len(ordered) else ordered)


def decode_terms(blob: bytes) -> Ints:
    """The ascending term numbers of a term list; `ValueError` for a damaged blob."""
    if not isinstance(blob, bytes) or not blob or blob[0] not in _WIDTHS:
        raise ValueError("its term list has no valid width byte")
    width = blob[0]
    if (len(blob) - 1) % width:
        raise ValueError(f"its term list is {len(blob)} bytes, not 1 + a multiple of {width}")
    gaps = np.frombuffer(blob, dtype=f"<u{width}", offset=1).astype(np.int64)
    if len(gaps) > 1 and np.any(gaps[1:] == 0):
        raise ValueError("its term list repeats a term")
    return np.cumsum(gaps)


def encode_body(body: str) -> bytes:
    """A chunk's JSON, compressed."""
    return zlib.compress(body.encode("utf-8"))


def decode_body(blob: bytes) -> bytes:
    """The JSON bytes `encode_body` was given."""
    return zlib.decompress(blob)


# -- SQL functions for migration 4 (registered by the store) -------------------


def sql_block(slots: str, counts: str) -> bytes:
    """A block as schema version 4 wrote it (no count byte), over two JSON arrays.

    Migration 4 builds blocks with this; migration 6 adds their count byte
    (`sql_counted_block`).
    """
    ordered, packed = _ordered_block(
        np.array(json.loads(slots), dtype=np.int64), np.array(json.loads(counts), dtype=np.int64)
    )
    return packed[:1] + ordered.astype(np.uint8).tobytes() + packed[1:]


def sql_counted_block(blob: bytes) -> bytes:
    """A block of schema version 4 or 5 with its count byte added (migration 6).

    The old layout's count is implied by its length; a blob whose length
    fits no count is left as it is, for `decode_block` to report as damaged.
    """
    if not blob or blob[0] not in _WIDTHS or (len(blob) - 1) % (1 + blob[0]):
        return blob
    n = (len(blob) - 1) // (1 + blob[0])
    if not 1 <= n <= BLOCK:
        return blob
    return blob[:1] + bytes([n - 1]) + blob[1:]


def sql_terms(numbers: str | None) -> bytes:
    """`encode_terms` over a JSON array (`NULL` from an empty group: no terms)."""
    return encode_terms(np.array(json.loads(numbers or "[]"), dtype=np.int64))


def sql_body(body: str) -> bytes:
    """`encode_body`, callable from SQL."""
    return encode_body(body)
