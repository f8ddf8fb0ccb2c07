"""Decoding a stored row: a failure becomes `DamagedRowError` naming the row, never a raw error.

Adapters decode what they read (a compressed body, a packed blob, JSON, a
vector) inside `decoding(...)`; codecs raise `ValueError` for a blob whose
length or layout is not one they write. `problem_of` words any failure for
a report, so the scans of `redstring check` and the read paths agree.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt
from pydantic import ValidationError

from redstring.domain.damage import DamagedRow
from redstring.domain.errors import DamagedRowError, RedstringError

#: What decoding a damaged value raises: zlib, pydantic and json (ValueErrors), numpy, codecs.
DECODE_FAILURES: tuple[type[Exception], ...] = (
    zlib.error,
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    OverflowError,
)


def problem_of(error: Exception) -> str:
    """What is wrong with a value whose decoding raised `error`, in words."""
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"its JSON does not read as redstring wrote it: {first['msg']}" + (
            f" at {where}" if where else ""
        )
    if isinstance(error, zlib.error):
        return f"its compressed body does not decompress ({error})"
    if isinstance(error, UnicodeDecodeError):
        return f"its text is not UTF-8 ({error.reason} at byte {error.start})"
    return str(error) or type(error).__name__


#: The store a row-level decoder names until the database it runs in names it (`named`).
UNNAMED = "a redstring store"


@contextmanager
def decoding(*, table: str, tenant: str, row: str, store: str = UNNAMED) -> Iterator[None]:
    """Raise `DamagedRowError` naming the row for any failure to decode inside the block.

    Code that runs inside a `SqliteDatabase` read or write may leave `store`
    out: the database names the store it was called for (`named`).
    """
    try:
        yield
    except RedstringError:
        raise
    except DECODE_FAILURES as error:
        raise DamagedRowError(
            store=store, table=table, tenant=tenant, row=row, problem=problem_of(error)
        ) from error


def named(error: DamagedRowError, store: str) -> DamagedRowError:
    """`error` naming `store` if it names none yet; itself otherwise."""
    if error.store != UNNAMED:
        return error
    return DamagedRowError(
        store=store, table=error.table, tenant=error.tenant, row=error.row, problem=error.problem
    )


def damage_of(*, table: str, tenant: str, row: str, error: Exception) -> DamagedRow:
    """The report of a row whose decoding raised `error` (a scan keeps going)."""
    if isinstance(error, DamagedRowError):
        return DamagedRow(table=table, tenant=tenant, row=row, problem=error.problem)
    return DamagedRow(table=table, tenant=tenant, row=row, problem=problem_of(error))


def float_vector(blob: object, dimension: int) -> npt.NDArray[np.float32]:
    """A stored float32 vector of `dimension` components; `ValueError` for any other blob."""
    matrix, damaged = float_matrix([blob], dimension)
    if damaged is not None:
        raise ValueError(damaged[1])
    row: npt.NDArray[np.float32] = matrix[0]
    return row


def float_matrix(
    blobs: Sequence[object], dimension: int
) -> tuple[npt.NDArray[np.float32], tuple[int, str] | None]:
    """Stored float32 vectors as rows, and the first that is not one (its index, what is wrong)."""
    size = 4 * dimension
    for index, blob in enumerate(blobs):
        if not isinstance(blob, bytes) or len(blob) != size:
            got = f"{len(blob)} bytes" if isinstance(blob, bytes) else type(blob).__name__
            empty = np.zeros((0, dimension), dtype=np.float32)
            return empty, (
                index,
                f"its vector is {got}, not the {size} bytes of {dimension} float32s",
            )
    raw = b"".join(blob for blob in blobs if isinstance(blob, bytes))
    matrix = np.frombuffer(raw, dtype=np.float32).reshape(len(blobs), dimension)
    finite = np.isfinite(matrix).all(axis=1)
    if not finite.all():
        index = int(np.argmin(finite))
        return matrix, (index, "its vector holds a component that is not a finite number")
    return matrix, None


def matrix_of(
    blobs: Sequence[object], dimension: int, *, table: str, tenant: str, rows: Sequence[str]
) -> npt.NDArray[np.float32]:
    """`float_matrix`, a damaged blob raising `DamagedRowError` naming `rows[its index]`."""
    matrix, damaged = float_matrix(blobs, dimension)
    if damaged is not None:
        index, problem = damaged
        raise DamagedRowError(
            store=UNNAMED, table=table, tenant=tenant, row=rows[index], problem=problem
        )
    return matrix
