"""PostgreSQL exact search (ADR 0270) ranks as the float32 scan before it did, on the real server.

`REFERENCE` is the statement exact search ran before ADR 0270 (ADR 0190's
scan); every test compares the store with it over the same rows. The float16
pool is re-scored from float32 and proved complete by the error bound; the
rows of `test_rows_the_float16_ranking_misorders_are_found_by_the_full_scan`
are built so the bound cannot hold and the exact answer lies outside the pool.
"""

from __future__ import annotations

import math
import uuid
from typing import Any

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector

from redstring import new_tenant_id
from redstring.domain.vector import cosine_to_score
from redstring.errors import SchemaMigrationRequiredError
from redstring.ports import VectorRecord
from redstring.storage.postgres import PostgresDatabase
from redstring.stores import open_postgres
from redstring.vector.postgres import schema_for
from tests.unit.stores.partitioning import as_text

REFERENCE = (
    "SELECT entity_id, entity_type, (1.0 + (embedding <#> %(q)s) * inverse_norm) AS distance"
    " FROM {schema}.vector_records WHERE {where} ORDER BY distance, entity_id LIMIT %(k)s"
)
RESCAN = "<= %(ceiling)s"


def reference(
    url: str,
    schema: str,
    query: list[float],
    tenant: uuid.UUID,
    *,
    k: int,
    entity_types: list[str] | None = None,
    min_score: float | None = None,
) -> list[tuple[uuid.UUID, str, float]]:
    """The float32 scan exact search ran before ADR 0270, with the store's post-processing."""
    q = np.asarray(query, dtype=np.float64)
    parameters: dict[str, Any] = {"q": (q / np.linalg.norm(q)).astype(np.float32), "k": k}
    where = ["tenant_id = %(tenant)s"]
    parameters["tenant"] = tenant
    if entity_types is not None:
        where.append("normalized_type = ANY(%(types)s)")
        parameters["types"] = entity_types
    if min_score is not None:
        where.append(
            "greatest(0.0, least(1.0, 1.0 - (1.0 + (embedding <#> %(q)s) * inverse_norm) / 2.0))"
            " >= %(min_score)s"
        )
        parameters["min_score"] = min_score
    statement = REFERENCE.format(schema=f'"{schema}"', where=" AND ".join(where))
    with psycopg.connect(url) as connection:
        register_vector(connection)
        rows = connection.execute(statement, parameters).fetchall()
    hits = sorted(
        ((cosine_to_score(1.0 - float(d)), str(i), i, t) for i, t, d in rows),
        key=lambda hit: (-hit[0], hit[1]),
    )
    return [(i, t, s) for s, _, i, t in hits]


def found(hits: list[Any]) -> list[tuple[uuid.UUID, str, float]]:
    return [(h.entity_id, h.entity_type, h.score) for h in hits]


def _record(tenant: Any, n: int, kind: str, vector: Any) -> VectorRecord:
    return VectorRecord(
        tenant_id=tenant,
        entity_id=uuid.UUID(int=n + 1),
        entity_type=kind,
        vector=[float(x) for x in vector],
    )


def _statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    execute = psycopg.AsyncCursor.execute

    async def recording(
        cursor: psycopg.AsyncCursor[Any], query: Any, params: Any = None, **kw: Any
    ) -> Any:
        seen.append(as_text(query, cursor.connection))
        return await execute(cursor, query, params, **kw)

    monkeypatch.setattr(psycopg.AsyncCursor, "execute", recording)
    return seen


@pytest.mark.asyncio
async def test_ties_filters_and_colliding_tenants_rank_as_the_float32_scan_did(
    postgres_url: str,
) -> None:
    schema = f"x_{uuid.uuid4().hex[:12]}"
    rng = np.random.default_rng(3)
    async with await open_postgres(postgres_url, dimension=16, schema=schema) as stores:
        tenant, other = new_tenant_id(), new_tenant_id()
        vectors = rng.standard_normal((120, 16))
        kinds = ["person", "place", "organization"]
        records = [_record(tenant, n, kinds[n % 3], v) for n, v in enumerate(vectors)]
        # Ties: the same vector under ids written out of id order, and scaled copies.
        records += [_record(tenant, 500 - n, "person", vectors[7] * (1 + n)) for n in range(6)]
        # The same ids in another tenant, pointing the other way.
        records += [_record(other, n, "person", -v) for n, v in enumerate(vectors[:60])]
        await stores.vectors.upsert(records)
        queries = [vectors[7], vectors[20] + 0.3 * rng.standard_normal(16), rng.standard_normal(16)]
        for query in queries:
            for k in (1, 3, 10, 200):
                for types in (None, ["place"], ["person", "organization"]):
                    for min_score in (None, 0.0, 0.55, 0.999):
                        got = await stores.vectors.search(
                            list(query), tenant, k=k, entity_types=types, min_score=min_score
                        )
                        expected = reference(
                            postgres_url,
                            schema,
                            list(query),
                            tenant,
                            k=k,
                            entity_types=types,
                            min_score=min_score,
                        )
                        assert found(got) == expected, (k, types, min_score)
        tied = await stores.vectors.search(list(vectors[7]), tenant, k=7)
        assert [h.entity_id for h in tied] == sorted((h.entity_id for h in tied), key=str)
        assert {h.entity_id for h in tied} == {uuid.UUID(int=8)} | {
            uuid.UUID(int=501 - n) for n in range(6)
        }
        assert all(h.score == tied[0].score for h in tied)
        # The other tenant's rows point away: none of them shows up, though ids collide.
        theirs = await stores.vectors.search(list(-vectors[7]), other, k=5)
        assert theirs[0].entity_id == uuid.UUID(int=8)
        assert found(theirs) == reference(postgres_url, schema, list(-vectors[7]), other, k=5)


@pytest.mark.asyncio
async def test_the_type_filter_applies_before_k_through_the_pool(postgres_url: str) -> None:
    """Sixty rows of another type sit nearer than the one kept row: the pool must skip them."""
    schema = f"x_{uuid.uuid4().hex[:12]}"
    async with await open_postgres(postgres_url, dimension=4, schema=schema) as stores:
        tenant = new_tenant_id()
        near = [_record(tenant, n, "person", [1.0, 0.001 * n, 0.0, 0.0]) for n in range(60)]
        kept = _record(tenant, 100, "place", [0.0, 0.0, 1.0, 0.2])
        await stores.vectors.upsert([*near, kept])
        hits = await stores.vectors.search(
            [1.0, 0.0, 0.0, 0.0], tenant, k=1, entity_types=["place"]
        )
        assert [h.entity_id for h in hits] == [kept.entity_id]


@pytest.mark.asyncio
async def test_well_separated_rows_need_no_full_scan(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = f"x_{uuid.uuid4().hex[:12]}"
    rng = np.random.default_rng(11)
    async with await open_postgres(postgres_url, dimension=32, schema=schema) as stores:
        tenant = new_tenant_id()
        vectors = rng.standard_normal((300, 32))
        await stores.vectors.upsert(
            [_record(tenant, n, "person", v) for n, v in enumerate(vectors)]
        )
        seen = _statements(monkeypatch)
        query = list(vectors[5] + 0.1 * rng.standard_normal(32))
        got = await stores.vectors.search(query, tenant, k=5)
        assert found(got) == reference(postgres_url, schema, query, tenant, k=5)
        assert got[0].entity_id == uuid.UUID(int=6)
        assert any("unit_half" in s for s in seen)
        assert not any(RESCAN in s for s in seen)


def _misordered(tenant: Any) -> tuple[list[VectorRecord], VectorRecord]:
    """Thirty rows float16 ranks above the one row that is exactly the best (k=1, pool 22).

    Near 0.5 float16 values are 2^-11 apart. The best row's two queried
    coordinates sit just under a rounding midpoint (both round down); the
    others' first one sits just over it (rounds up), the second just under:
    exactly a little worse, by float16 a whole step better.
    """
    step, eps = 2.0**-11, 1e-5
    mid = 0.5 + step / 2

    def unit(a: float, b: float) -> list[float]:
        return [a, b, math.sqrt(1.0 - a * a - b * b)]

    best = _record(tenant, 1000, "person", unit(mid - eps, mid - eps))
    rest = [
        _record(tenant, n, "person", unit(mid + eps, mid - 4 * eps - n * 1e-6)) for n in range(30)
    ]
    return rest, best


@pytest.mark.asyncio
async def test_rows_the_float16_ranking_misorders_are_found_by_the_full_scan(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = f"x_{uuid.uuid4().hex[:12]}"
    async with await open_postgres(postgres_url, dimension=3, schema=schema) as stores:
        tenant = new_tenant_id()
        rest, best = _misordered(tenant)
        await stores.vectors.upsert([*rest, best])
        query = [1.0, 1.0, 0.0]
        with psycopg.connect(postgres_url) as connection:
            pooled = {
                row[0]
                for row in connection.execute(
                    f'SELECT entity_id FROM "{schema}".vector_records'
                    " ORDER BY unit_half <#> '[0.7071,0.7071,0]'::halfvec, entity_id LIMIT 22"
                )
            }
        assert best.entity_id not in pooled  # the setup bites: float16 leaves the best out
        seen = _statements(monkeypatch)
        got = await stores.vectors.search(query, tenant, k=1)
        assert [h.entity_id for h in got] == [best.entity_id]
        assert found(got) == reference(postgres_url, schema, query, tenant, k=1)
        assert any(RESCAN in s for s in seen)
        # With min_score keeping only the best row, the cut comes from min_score.
        seen.clear()
        floor = got[0].score
        kept = await stores.vectors.search(query, tenant, k=3, min_score=floor)
        assert found(kept) == reference(postgres_url, schema, query, tenant, k=3, min_score=floor)
        assert best.entity_id in {h.entity_id for h in kept}


@pytest.mark.asyncio
async def test_the_float16_column_stays_in_the_row_and_wide_rows_still_fit(
    postgres_url: str,
) -> None:
    """At 384 dimensions the float32 vector leaves the row and the float16 one stays; at
    5,000 (past a page) a row is still written, moved out only as MAIN's last resort."""
    for dimension, inline in ((384, True), (5000, False)):
        schema = f"x_{uuid.uuid4().hex[:12]}"
        rng = np.random.default_rng(dimension)
        async with await open_postgres(postgres_url, dimension=dimension, schema=schema) as stores:
            tenant = new_tenant_id()
            vectors = rng.standard_normal((30, dimension))
            await stores.vectors.upsert(
                [_record(tenant, n, "person", v) for n, v in enumerate(vectors)]
            )
            with psycopg.connect(postgres_url) as connection:
                storage = dict(
                    connection.execute(
                        "SELECT attname, attstorage FROM pg_attribute"
                        " WHERE attrelid = %s::regclass AND attname IN ('embedding', 'unit_half')",
                        (f'"{schema}".vector_records',),
                    ).fetchall()
                )
                assert storage == {"embedding": "e", "unit_half": "m"}
                [[half_out, float_out]] = connection.execute(
                    "SELECT bool_or(pg_column_toast_chunk_id(unit_half) IS NOT NULL"
                    " OR pg_column_compression(unit_half) IS NOT NULL),"
                    " bool_and(pg_column_toast_chunk_id(embedding) IS NOT NULL)"
                    f' FROM "{schema}".vector_records'
                ).fetchall()
            assert (half_out, float_out) == (not inline, True)
            query = list(vectors[3])
            got = await stores.vectors.search(query, tenant, k=4)
            assert got[0].entity_id == uuid.UUID(int=4)
            assert found(got) == reference(postgres_url, schema, query, tenant, k=4)


@pytest.mark.asyncio
async def test_a_version_two_vector_schema_gains_the_float16_column_on_migrate(
    postgres_url: str,
) -> None:
    schema = f"x_{uuid.uuid4().hex[:12]}"
    current = schema_for(8)
    database = await PostgresDatabase.connect(postgres_url, schema=schema, extensions=("vector",))
    rng = np.random.default_rng(2)
    tenant = new_tenant_id()
    vectors = rng.standard_normal((40, 8)).astype(np.float32)
    try:
        version_two = type(current)(component="vector", migrations=current.migrations[:2])
        await database.ensure_schema(version_two, migrate=False, store="test")
        await database.ensure_dimension("vector", 8, store="test", holds="vectors")
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            register_vector(connection)
            for n, v in enumerate(vectors):
                connection.execute(
                    f'INSERT INTO "{schema}".vector_records (tenant_id, entity_id, entity_type,'
                    " normalized_type, embedding) VALUES (%s, %s, 'person', 'person', %s)",
                    (tenant, uuid.UUID(int=n + 1), v),
                )
    finally:
        await database.close()
    with pytest.raises(SchemaMigrationRequiredError):
        await open_postgres(postgres_url, dimension=8, schema=schema)
    async with await open_postgres(
        postgres_url, dimension=8, schema=schema, migrate=True
    ) as stores:
        with psycopg.connect(postgres_url) as connection:
            [[missing, storage]] = connection.execute(
                "SELECT count(*) FILTER (WHERE unit_half IS NULL), min(a.attstorage)"
                f' FROM "{schema}".vector_records, pg_attribute AS a'
                " WHERE a.attrelid = %s::regclass AND a.attname = 'unit_half'",
                (f'"{schema}".vector_records',),
            ).fetchall()
        assert (missing, storage) == (0, "m")
        query = list(vectors[9] + 0.05)
        got = await stores.vectors.search(query, tenant, k=6)
        assert got[0].entity_id == uuid.UUID(int=10)
        assert found(got) == reference(postgres_url, schema, query, tenant, k=6)
