"""A writable open catches every store up with the log (B130): a crash between append and fold."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from redstring import Entity, new_tenant_id
from redstring.composition.postgres_stores import open_postgres
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.events import DocumentExtracted
from redstring.domain.ids import TenantId
from tests.hang_guard import HANG_GUARD_SECONDS

HERE = Path(__file__).parent
ROOT = HERE.parents[2]


def extracted(tenant: TenantId, name: str) -> DocumentExtracted:
    entity = Entity(tenant_id=tenant, entity_type="person", name=name)
    return DocumentExtracted(
        tenant_id=tenant, document_id=name, entities=[entity], relationships=[]
    )


@pytest.mark.asyncio
async def test_a_process_killed_between_append_and_fold_is_caught_up_by_the_next_open(
    tmp_path: Path,
) -> None:
    path, tenant, other = tmp_path / "lag.db", new_tenant_id(), new_tenant_id()
    stores = open_sqlite(path, dimension=4)
    await stores.events.append(
        [extracted(other, "Grace Hopper")]
    )  # unfolded: the child's open folds it
    await stores.close()
    child = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, str(HERE / "append_then_die.py"), str(path), str(tenant)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )
    assert child.returncode == -signal.SIGKILL

    before = open_sqlite(path, read_only=True)  # cannot write, so reads the lag as it is
    assert await before.graph.list_entities(tenant) == []
    assert [e.name for e in await before.graph.list_entities(other)] == ["Grace Hopper"]
    assert await before.events.lagging_tenants(["graph"]) == [tenant]
    await before.close()

    reopened = open_sqlite(path)
    try:
        assert [e.name for e in await reopened.graph.list_entities(tenant)] == ["Ada Lovelace"]
        assert [e.name for e in await reopened.graph.list_entities(other)] == ["Grace Hopper"]
        assert await reopened.events.position(tenant, "graph") == 1
        assert await reopened.events.lagging_tenants(["graph", "vectors", "chunks"]) == []
    finally:
        await reopened.close()


@pytest.mark.asyncio
async def test_a_postgres_open_catches_up_events_appended_and_never_folded(
    postgres_url: str,
) -> None:
    schema, tenant = f"t_{uuid.uuid4().hex[:12]}", new_tenant_id()
    stores = await open_postgres(postgres_url, dimension=4, schema=schema, max_size=2)
    await stores.events.append([extracted(tenant, "Ada Lovelace")])  # the crash: no fold follows
    assert await stores.graph.list_entities(tenant) == []
    await stores.close()
    reopened = await open_postgres(postgres_url, schema=schema, max_size=2)
    try:
        assert [e.name for e in await reopened.graph.list_entities(tenant)] == ["Ada Lovelace"]
        assert await reopened.events.lagging_tenants(["graph", "vectors", "chunks"]) == []
    finally:
        await reopened.close()
