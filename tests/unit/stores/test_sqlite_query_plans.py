"""Every SQLite graph lookup is an index search, never a table or tenant scan.

The statements are captured as the store runs them (bound values expanded)
and handed to `EXPLAIN QUERY PLAN`, so the test checks the real SQL, with and
without planner statistics.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from itertools import pairwise
from pathlib import Path

import pytest

from redstring import Entity, Relationship, new_tenant_id
from redstring.domain.blocking import query_blocking_keys
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import SqliteDatabase


def _problems(plan: list[str], *, whole_tenant: bool) -> list[str]:
    """Plan steps that read more than the lookup needs."""
    # Scanning a subquery's own (already narrowed) result is fine; scanning a table is not.
    subqueries = {s.split()[1] for s in plan if s.startswith(("MATERIALIZE", "CO-ROUTINE"))}
    bad = [
        s for s in plan if (s.startswith("SCAN") and s.split()[1] not in subqueries) or "ANY(" in s
    ]
    if not whole_tenant:  # a lookup must narrow below the tenant's whole range
        bad += [s for s in plan if s.endswith("(tenant_id=?)")]
    return bad


@pytest.mark.asyncio
@pytest.mark.parametrize("analyze", [False, True])
async def test_graph_lookups_search_indexes_and_scan_nothing(tmp_path: Path, analyze: bool) -> None:
    database = SqliteDatabase(tmp_path / "plans.db")
    store = SqliteGraphStore(database)
    tenants = [new_tenant_id() for _ in range(3)]
    for tenant in tenants:
        people = [
            Entity(tenant_id=tenant, entity_type="person", name=f"Ada {n}") for n in range(30)
        ]
        edges = [
            Relationship(
                tenant_id=tenant, source_id=a.id, target_id=b.id, relationship_type="knows"
            )
            for a, b in pairwise(people)
        ]
        await store.upsert(people, edges)
    if analyze:
        database.connection.execute("ANALYZE")

    tenant = tenants[0]
    [someone] = await store.get_entities([people[5].id], tenants[-1])
    calls: dict[str, Callable[[], Awaitable[object]]] = {
        "find_by_blocking_keys": lambda: store.find_by_blocking_keys(
            query_blocking_keys("Ada 7"), tenant
        ),
        "get_entities": lambda: store.get_entities([someone.id], tenant),
        "find_by_type": lambda: store.find_by_type("person", tenant),
        "relationships_of": lambda: store.relationships_of(someone.id, tenant),
        "neighbours": lambda: store.neighbours(someone.id, tenant),
        "list_entities": lambda: store.list_entities(tenant),
    }
    for name, call in calls.items():
        statements: list[str] = []
        database.connection.set_trace_callback(statements.append)
        await call()
        database.connection.set_trace_callback(None)
        [select] = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
        plan = [row[3] for row in database.connection.execute(f"EXPLAIN QUERY PLAN {select}")]
        whole_tenant = name in ("list_entities", "find_by_type")
        assert _problems(plan, whole_tenant=whole_tenant) == [], f"{name}: {plan}"
