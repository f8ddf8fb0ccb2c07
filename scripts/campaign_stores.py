"""The fault campaign's writes and checks, over either backend (see fault_campaign.py).

Batch `n` of each target is a fixed set of `BATCH` items, so writing it again
changes nothing and a finished run can be compared with an uninterrupted one.
"""

from __future__ import annotations

import sqlite3
from typing import Any
from uuid import UUID, uuid5

from redstring import ChunkRetriever, Entity, Relationship, StoredChunk, TenantId
from redstring.composition.sqlite_stores import open_sqlite
from redstring.ports import DocumentChunked, DocumentExtracted, VectorRecord
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import EventSink
from redstring.stores import catch_up_stores

BATCH = 20
# "folded": events appended, then folded into the graph (a kill can fall between the two).
TARGETS = ("entities", "vectors", "chunks", "events", "folded")
#: Events each check after a kill found logged but not yet folded into the graph,
#: read before any open (a writable open catches up itself, ADR 0134).
CAUGHT_UP: list[int] = []
_NAMESPACE = UUID("6f0d6c1e-2f7a-4c55-9d3e-0a1b2c3d4e5f")
_TERMS = ("ada", "engine", "notes", "babbage")


async def open_stores(db: str, *, dimension: int | None = None, read_only: bool = False) -> Any:
    """The store set of a SQLite path or a PostgreSQL URL."""
    if db.startswith("postgresql"):
        from redstring.composition.postgres_stores import open_postgres  # noqa: PLC0415

        return await open_postgres(db, dimension=dimension, min_size=1, max_size=2)
    return open_sqlite(db, dimension=dimension, read_only=read_only)


def _id(*parts: object) -> UUID:
    return uuid5(_NAMESPACE, "/".join(map(str, parts)))


async def write_batch(stores: Any, target: str, tenant: str, number: int) -> None:
    """Write batch `number` of `target` for `tenant`: one store call, so one transaction."""
    owner = TenantId(UUID(tenant))
    if target in ("entities", "folded"):
        people = [
            Entity(tenant_id=owner, entity_type="person", name=f"Person {number}-{j}")
            for j in range(BATCH)
        ]
        links = [
            Relationship(
                tenant_id=owner,
                source_id=people[j].id,
                target_id=people[j + 1].id,
                relationship_type="knows",
            )
            for j in range(BATCH - 1)
        ]
        if target == "entities":
            await stores.graph.upsert(people, links)
            return
        extracted = DocumentExtracted(
            event_id=_id("folded", number),
            tenant_id=owner,
            document_id=f"doc-{number}",
            entities=people,
            relationships=links,
        )
        await EventSink(stores.events, [GraphProjection(stores.graph)]).emit([extracted])
    elif target == "vectors":
        records = [
            VectorRecord(
                tenant_id=owner,
                entity_id=_id(number, j),
                entity_type="thing",
                vector=[1.0, float(number), float(j), 1.0],
            )
            for j in range(BATCH)
        ]
        await stores.vectors.upsert(records)
    elif target == "chunks":
        await stores.chunks.replace_source(f"doc-{number}", owner, _chunks(owner, number))
    else:
        events = [
            DocumentChunked(
                event_id=_id("event", number, j),
                tenant_id=owner,
                document_id=f"doc-{number}-{j}",
                chunks=[],
            )
            for j in range(BATCH)
        ]
        await stores.events.append(events)


def _chunks(owner: TenantId, number: int, source: str | None = None) -> list[StoredChunk]:
    source = source or f"doc-{number}"
    texts = [f"{_TERMS[(number + j) % 4]} passage {number} {j} " + "w " * j for j in range(BATCH)]
    return [
        StoredChunk(tenant_id=owner, source_id=source, text=t, index=j, start=0, end=len(t))
        for j, t in enumerate(texts)
    ]


async def _fingerprint(stores: Any, target: str, owner: TenantId) -> Any:
    """What the store holds of `target` for `owner`, comparable across databases."""
    if target in ("entities", "folded"):
        entities = sorted(e.model_dump_json() for e in await stores.graph.list_entities(owner))
        links = sorted(r.model_dump_json() for r in await stores.graph.list_relationships(owner))
        return entities, links
    if target == "vectors":
        ids = [_id(n, j) for n in range(200) for j in range(BATCH)]
        return sorted(r.model_dump_json() for r in await stores.vectors.get(ids, owner))
    if target == "chunks":
        return sorted(c.model_dump_json() for c in await stores.chunks.list_chunks(owner))
    return [e.model_dump_json() for e in await stores.events.read(owner)]


async def _batches_held(stores: Any, target: str, owner: TenantId) -> dict[int, int]:
    """Items held per batch number."""
    held: dict[int, int] = {}
    if target in ("entities", "folded"):
        for entity in await stores.graph.list_entities(owner):
            number = int(entity.name.split()[1].split("-")[0])
            held[number] = held.get(number, 0) + 1
    elif target == "vectors":
        for n in range(200):
            found = await stores.vectors.get([_id(n, j) for j in range(BATCH)], owner)
            if found:
                held[n] = len(found)
    elif target == "chunks":
        for chunk in await stores.chunks.list_chunks(owner):
            number = int(chunk.source_id.split("-")[1])
            held[number] = held.get(number, 0) + 1
    else:
        for event in await stores.events.read(owner):
            assert isinstance(event, DocumentChunked)
            number = int(event.document_id.split("-")[1])
            held[number] = held.get(number, 0) + 1
    return held


async def check_state(
    db: str,
    target: str,
    tenant: str,
    *,
    must_hold: set[int],
    compare: str | None = None,
) -> list[str]:
    """Problems found: half batches, lost batches, inconsistent statistics, a damaged file."""
    owner = TenantId(UUID(tenant))
    problems: list[str] = []
    if target == "folded":
        CAUGHT_UP.append(await _graph_lag(db, tenant))
    stores = await open_stores(db)
    try:
        if target == "folded":  # before counting, so every count sees the caught-up graph
            problems += await _caught_up(stores, owner)
        held = await _batches_held(stores, target, owner)
        problems += [f"batch {n} holds {c} of {BATCH}" for n, c in held.items() if c != BATCH]
        problems += [f"batch {n} reported done but lost" for n in sorted(must_hold - set(held))]
        if target in ("entities", "folded"):
            links = len(await stores.graph.list_relationships(owner))
            if links != len(held) * (BATCH - 1):
                problems.append(f"{links} relationships for {len(held)} batches")
        if target == "chunks" and not await lexical_read(stores, tenant):
            problems.append("lexical statistics disagree with the postings")
        if target == "events":
            sequences = [e.sequence for e in await stores.events.read(owner)]
            if sequences != list(range(1, len(sequences) + 1)):
                problems.append("event sequences have gaps")
        if not db.startswith("postgresql"):
            with sqlite3.connect(db) as raw:
                verdict = raw.execute("PRAGMA integrity_check").fetchall()
            raw.close()
            if verdict != [("ok",)]:
                problems.append(f"integrity_check: {verdict}")
            for store in (stores.graph, stores.vectors, stores.chunks, stores.events):  # check
                problems += [f"damaged row: {row}" for row in await store.damaged_rows()]
        if compare is not None:
            other = await open_stores(compare)
            try:
                if await _fingerprint(stores, target, owner) != await _fingerprint(
                    other, target, owner
                ):
                    problems.append("state differs from the uninterrupted run")
            finally:
                await other.close()
    finally:
        await stores.close()
    return problems


async def _graph_lag(db: str, tenant: str) -> int:
    """How far the graph's recorded position is behind the tenant's log, read raw."""
    last = "SELECT coalesce(max(sequence), 0) FROM {s}event_log WHERE tenant_id = %s"
    position = (
        "SELECT coalesce(max(sequence), 0) FROM {s}projection_position"
        " WHERE tenant_id = %s AND projection = 'graph'"
    )
    if db.startswith("postgresql"):
        import psycopg  # noqa: PLC0415

        async with await psycopg.AsyncConnection.connect(db, autocommit=True) as connection:
            found = []
            for statement in (last, position):
                cursor = await connection.execute(statement.format(s="redstring."), (tenant,))
                found.append(int((await cursor.fetchone() or (0,))[0]))
        return found[0] - found[1]
    with sqlite3.connect(db) as raw:
        ends = [
            int(raw.execute(q.format(s="").replace("%s", "?"), (tenant,)).fetchone()[0])
            for q in (last, position)
        ]
    raw.close()
    return ends[0] - ends[1]


async def _caught_up(stores: Any, owner: TenantId) -> list[str]:
    """Catch the graph up with the log; problems if it then lacks a logged batch."""
    last = await stores.events.last_sequence(owner)
    positions = await catch_up_stores(stores.events, owner, graph=stores.graph)
    problems = (
        []
        if positions.get("graph") == last
        else [f"graph position {positions} after catch-up, log at {last}"]
    )
    logged = {int(e.document_id.split("-")[1]) for e in await stores.events.read(owner)}
    held = {int(e.name.split()[1].split("-")[0]) for e in await stores.graph.list_entities(owner)}
    problems += [f"batch {n} logged but not in the graph" for n in sorted(logged - held)]
    return problems


async def lexical_read(stores: Any, tenant: str) -> bool:
    """One lexical passage query, and whether its candidates agree with its statistics."""
    owner = TenantId(UUID(tenant))
    found = await stores.chunks.lexical_candidates(list(_TERMS), owner)
    holding = {term: 0 for term in _TERMS}
    for candidate in found.candidates:
        for term, count in candidate.term_frequencies.items():
            holding[term] += count > 0
    agrees = holding == found.stats.document_frequencies
    retriever = ChunkRetriever.lexical_only(chunks=stores.chunks)
    await retriever.retrieve_chunks("ada engine notes", owner, k=5, mode="lexical")
    return agrees


async def churn_step(stores: Any, tenant: str, step: int) -> None:
    """Re-index source 'doc-0' (even steps) or delete it (odd steps), one transaction each."""
    owner = TenantId(UUID(tenant))
    if step % 2 == 0:
        await stores.chunks.replace_source("doc-0", owner, _chunks(owner, step % 7, "doc-0"))
    else:
        await stores.chunks.delete_source("doc-0", owner)
