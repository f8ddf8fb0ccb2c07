"""One transaction over a log and the stores folding from it, when they share a database.

Composes any adapters that offer `SharedTransaction` (ADR 0256).
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, nullcontext

from redstring.ports.transactions import SharedTransaction


def one_transaction(*parts: object) -> AbstractAsyncContextManager[None]:
    """The shared transaction of `parts` (`None`s skipped) if every one offers it with one
    scope; otherwise nothing (each write commits alone, as without it)."""
    present = [part for part in parts if part is not None]
    shared = [part for part in present if isinstance(part, SharedTransaction)]
    if not shared or len(shared) < len(present):
        return nullcontext()
    if len({id(part.transaction_scope) for part in shared}) > 1:
        return nullcontext()
    return shared[0].transaction()
