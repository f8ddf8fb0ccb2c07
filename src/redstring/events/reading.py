"""Argument checks every event log applies to `read`."""

from __future__ import annotations


def check_read_bounds(after: int, limit: int | None) -> None:
    """Raise `ValueError` for a negative `after` or `limit`."""
    if after < 0:
        raise ValueError(f"after must be zero or more, got {after}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be zero or more, got {limit}")
