"""Every SQLite graph and chunk lookup is an index search, never a table or tenant scan.

The statements are captured as the store runs them (bound values expanded)
and handed to `EXPLAIN QUERY PLAN`, so the test checks the real SQL, with and
without planner statistics.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from itertools import pairwise
from pathlib import Path
from uuid import UUID

import pytest

from redstring import Entity, EntityId, Relationship, StoredChunk, new_tenant_id
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.domain.blocking import query_blocking_keys, query_ngram_keys
from redstring.domain.query import NormalizedQuery
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import SqliteDatabase

fixed_entity = EntityId(UUID("00000000-0000-4000-a000-000000000001"))


_MATRIX = "SELECT r.chunk_id, r.source_id, v.embedding FROM chunk_texts r"
_NUMBER_MAP = "SELECT number, chunk_id, length, source_id FROM chunk_texts"


def _problems(plan: list[str], *, whole_tenant: bool) -> list[str]:
    """Plan steps that read more than the lookup needs."""
    # Scanning a subquery's own (already narrowed) result is fine; scanning a table is not.
    subqueries = {s.split()[1] for s in plan if s.startswith(("MATERIALIZE", "CO-ROUTINE"))}
    bad = [
        s for s in plan if (s.startswith("SCAN") and s.split()[1] not in subqueries) or "ANY(" in s
    ]
    if not whole_tenant:  # a lookup must narrow below the tenant's whole range
        # (graph_tenants and graph_generations hold one row per tenant: its number, its token)
        bad += [
            s
            for s in plan
            if s.endswith(("(tenant_id=?)", "(tenant=?)"))
            and not any(table in s for table in ("graph_tenants", "graph_generations"))
        ]
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
    query = NormalizedQuery.of("Ada 7")
    calls: dict[str, Callable[[], Awaitable[object]]] = {
        "find_by_blocking_keys": lambda: store.find_by_blocking_keys(
            query_blocking_keys(query), tenant
        ),
        "find_ids_by_blocking_keys": lambda: store.find_ids_by_blocking_keys(
            query_blocking_keys(query), tenant
        ),
        "count_blocking_keys": lambda: store.count_blocking_keys(query_ngram_keys(query), tenant),
        "get_entities": lambda: store.get_entities([someone.id], tenant),
        "find_by_type": lambda: store.find_by_type("person", tenant),
        "relationships_of": lambda: store.relationships_of(someone.id, tenant),
        "neighbours": lambda: store.neighbours(someone.id, tenant),
        "list_entities": lambda: store.list_entities(tenant),
        "graph_summary": lambda: store.graph_summary(tenant),
    }
    # A block call reads the tenant's number, then one index range per distinct key; the
    # id and count reads read the tenant's generation token first (ADR 0450), and so does
    # `get_entities` (its rows are read by row number from a mirrored tenant, ADR 0455).
    per_key = {
        "find_by_blocking_keys": len(set(query_blocking_keys(query))),
        "find_ids_by_blocking_keys": len(set(query_blocking_keys(query))),
        "count_blocking_keys": len(set(query_ngram_keys(query))),
    }
    expected_selects = {"graph_summary": 2, **{name: 1 + n for name, n in per_key.items()}}
    expected_selects["find_ids_by_blocking_keys"] += 1
    expected_selects["count_blocking_keys"] += 1
    expected_selects["get_entities"] = 2
    for name, call in calls.items():
        statements: list[str] = []
        database.connection.set_trace_callback(statements.append)
        await call()
        database.connection.set_trace_callback(None)
        selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
        assert len(selects) == expected_selects.get(name, 1), name
        for select in selects:
            plan = [row[3] for row in database.connection.execute(f"EXPLAIN QUERY PLAN {select}")]
            whole_tenant = name in ("list_entities", "find_by_type", "graph_summary")
            assert _problems(plan, whole_tenant=whole_tenant) == [], f"{name}: {plan}"
            if name == "graph_summary":  # counted from an index alone: no row body is read
                assert all("COVERING INDEX" in step for step in plan), plan


@pytest.mark.asyncio
@pytest.mark.parametrize("analyze", [False, True])
async def test_chunk_calls_search_indexes_and_scan_nothing(tmp_path: Path, analyze: bool) -> None:
    """Every statement a chunk call runs, writes included; only whole-tenant reads may range."""
    database = SqliteDatabase(tmp_path / "chunks.db")
    store = SqliteChunkStore(database, dimension=2, cache_bytes=0)
    tenants = [new_tenant_id() for _ in range(3)]
    for tenant in tenants:
        await store.upsert_chunks(
            [
                StoredChunk(
                    tenant_id=tenant,
                    source_id=f"doc-{n % 5}",
                    text=f"engine notes number {n} by ada",
                    index=n,
                    start=0,
                    end=10,
                    entity_ids=[fixed_entity],
                    embedding=[1.0, float(n)],
                )
                for n in range(40)
            ]
        )
    if analyze:
        database.connection.execute("ANALYZE")

    tenant = tenants[0]
    chunk = (await store.chunks_of_source("doc-1", tenant))[0]
    calls: dict[str, Callable[[], Awaitable[object]]] = {
        "lexical_candidates": lambda: store.lexical_candidates(["engine", "number"], tenant),
        "lexical_candidates filtered": lambda: store.lexical_candidates(
            ["engine"], tenant, source_ids=["doc-2"]
        ),
        "get_chunks": lambda: store.get_chunks([chunk.id], tenant),
        "chunks_of_source": lambda: store.chunks_of_source("doc-1", tenant),
        "chunks_of_entity": lambda: store.chunks_of_entity(fixed_entity, tenant),
        "search_chunks": lambda: store.search_chunks([1.0, 0.5], tenant, k=3),
        "upsert_chunks": lambda: store.upsert_chunks([chunk]),
        "replace_source": lambda: store.replace_source("doc-1", tenant, [chunk]),
        "delete_source": lambda: store.delete_source("doc-3", tenant),
        "list_chunks": lambda: store.list_chunks(tenant),
        "chunk_summary": lambda: store.chunk_summary(tenant),
    }
    for name, call in calls.items():
        statements: list[str] = []
        database.connection.set_trace_callback(statements.append)
        await call()
        database.connection.set_trace_callback(None)
        checked = [
            s for s in statements if s.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE"))
        ]
        assert checked, name
        for statement in checked:
            plan = [
                row[3] for row in database.connection.execute(f"EXPLAIN QUERY PLAN {statement}")
            ]
            # The whole tenant is the answer of list_chunks, the matrix of search_chunks
            # and the chunk-number map of lexical_candidates (both cached);
            # chunk_corpus, chunk_generations and chunk_tenants hold one row per tenant.
            one_row_per_tenant = any(
                t in statement for t in ("chunk_corpus", "chunk_generations", "chunk_tenants")
            )
            # The count of embedded chunks walks the tenant's key range of chunk_vectors.
            counts_vectors = statement.startswith("SELECT COUNT(*) FROM chunk_vectors")
            if (name == "chunk_summary" or statement.startswith(_NUMBER_MAP)) and not (
                one_row_per_tenant or counts_vectors
            ):
                assert all("COVERING INDEX" in step for step in plan), plan  # no row body read
            whole_tenant = (
                name in ("list_chunks", "chunk_summary")
                or statement.startswith((_MATRIX, _NUMBER_MAP))
                or one_row_per_tenant
            )
            assert _problems(plan, whole_tenant=whole_tenant) == [], f"{name}: {statement} {plan}"
