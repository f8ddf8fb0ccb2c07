"""Tenants read whole in the background, each held only under the token it was read under.

`MirrorLoads` reads a tenant into its `TenantMirror` (ADR 0455) on a
read-only connection of its own (`SqliteDatabase.read_apart`, ADR 0465), at
most one load a tenant at a time: the read that starts it, and every read
until it is done, is answered per key, and nothing else on the file waits
for it. The load reads the tenant's token in the same read transaction as
its rows (committed rows only). `settle` hands a finished mirror to the
tenant's `TenantReads` only when the token the reader sees now is the one
the mirror was read under, and drops it otherwise. A load that fails is
logged on the `redstring.graph` logger and leaves the tenant read per key
under that token, as a tenant that does not fit.
"""

from __future__ import annotations

import logging
import sqlite3
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial

from redstring.graph.sqlite_mirror import TenantMirror, load_mirror
from redstring.graph.sqlite_reads import MAX_TENANT_READS_BYTES, TenantReads
from redstring.storage.sqlite import SqliteDatabase
from redstring.storage.tenant_cache import CacheBudget, current_generation

_log = logging.getLogger("redstring.graph")

#: The token a load found, and the mirror read under it (`None`: another token, or no fit).
type Loaded = tuple[str | None, TenantMirror | None]


@dataclass(frozen=True)
class _Load:
    token: str
    answer: Future[Loaded]


class MirrorLoads:
    """The loads of a store's tenants still running or not yet handed over, one a tenant.

    Call `start` and `settle` inside the store's reads (they hold the
    file's connection, so two never run at once). Mirrors take only room no
    other cache of `budget` holds, within `MAX_TENANT_READS_BYTES`.
    """

    def __init__(
        self, database: SqliteDatabase, *, store: str, generations: str, budget: CacheBudget
    ) -> None:
        self._db = database
        self._store = store
        self._generations = generations
        self._budget = budget
        self._loads: dict[str, _Load] = {}

    def start(self, tenant: str, token: str, reads: TenantReads) -> None:
        """Read `tenant` whole under `token` in the background, unless a load of it runs
        or no cache room is free."""
        room = self._room(reads)
        if tenant in self._loads or room <= 0:
            return

        def work(connection: sqlite3.Connection) -> Loaded:
            seen = current_generation(connection, self._generations, tenant)
            return seen, load_mirror(connection, tenant, room) if seen == token else None

        answer = self._db.read_apart(work, store=self._store)
        self._loads[tenant] = _Load(token, answer)
        answer.add_done_callback(partial(_log_failure, self._store, tenant))

    def settle(self, tenant: str, token: str, reads: TenantReads) -> bool:
        """Hand `reads` (the tenant's under `token`) what a finished load read under that
        token: its mirror, or a refusal when it did not fit or failed. Whether `reads` changed."""
        load = self._loads.get(tenant)
        if load is None or not load.answer.done():
            return False
        del self._loads[tenant]
        held = reads.mirror is not None or reads.refused
        if held or load.token != token or load.answer.cancelled():
            return False
        if load.answer.exception() is not None:  # logged when it failed
            reads.hold(None)
            return True
        seen, mirror = load.answer.result()
        if seen != token:  # a write moved the token before the load began: read again later
            return False
        fits = mirror is not None and mirror.nbytes <= self._room(reads)
        reads.hold(mirror if fits else None)
        return True

    def _room(self, reads: TenantReads) -> int:
        """The bytes a mirror may take in place of `reads`: a mirror never evicts a vector
        matrix, which would then evict it in turn."""
        return min(MAX_TENANT_READS_BYTES, self._budget.free + reads.nbytes)


def _log_failure(store: str, tenant: str, answer: Future[Loaded]) -> None:
    if not answer.cancelled() and (error := answer.exception()) is not None:
        _log.warning(
            "%s could not read tenant %s whole; its reads stay per key until it is written",
            store,
            tenant,
            exc_info=error,
        )
