"""Re-keying a tenant's blocking index after the key scheme changes (ADR 0070).

Composes nothing but a graph store's `BlockingIndexMaintenance`; it sits in
composition because it is an operator's command over a whole tenant, run
after upgrading the library (the CLI's `rekey` hook calls it).
"""

from __future__ import annotations

from dataclasses import dataclass

from redstring.domain.blocking import KEY_VERSION
from redstring.domain.ids import TenantId
from redstring.ports.graph_store import BlockingIndexMaintenance


@dataclass(frozen=True)
class RekeyReport:
    """What `rekey_graph` found and did for one tenant.

    `version_before`/`version_after` are the index's key versions (`None` for
    an empty tenant); `rekeyed` counts the entities re-filed (0 when the index
    was already current and `force` was not given).
    """

    tenant_id: TenantId
    version_before: int | None
    version_after: int | None
    rekeyed: int


async def rekey_graph(
    graph: BlockingIndexMaintenance, tenant_id: TenantId, *, force: bool = False
) -> RekeyReport:
    """Rebuild `tenant_id`'s blocking index when it was built with another `KEY_VERSION`.

    A current index is left alone unless `force`; an empty tenant has nothing
    to re-key. Other tenants are untouched. Safe to re-run after a crash: the
    store's rebuild is idempotent.
    """
    before = await graph.blocking_key_version(tenant_id)
    if before is None or (before == KEY_VERSION and not force):
        return RekeyReport(tenant_id, before, before, rekeyed=0)
    rekeyed = await graph.rebuild_blocking_index(tenant_id)
    after = await graph.blocking_key_version(tenant_id)
    return RekeyReport(tenant_id, before, after, rekeyed=rekeyed)
