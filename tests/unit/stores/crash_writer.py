"""Child process of the crash tests: starts a big batch on a SQLite file and stalls inside it.

Usage: python crash_writer.py PATH TENANT PAUSE_AFTER [graph|chunks]. It
writes many new entities (and an edit of an existing one) with one graph
upsert, or many new chunks (and an edit of an existing one) with one
`upsert_chunks`. A trace callback on the store's connection counts the
entity (or posting) inserts; after PAUSE_AFTER of them it prints "paused"
and sleeps inside the open transaction, for the parent to SIGKILL it there.
"""

from __future__ import annotations

import asyncio
import sys
import time
from uuid import UUID

from redstring import Entity, StoredChunk, TenantId
from redstring.composition.sqlite_stores import SqliteStores, open_sqlite


def graph_batch(stores: SqliteStores, tenant: TenantId, size: int) -> None:
    batch = [
        Entity(tenant_id=tenant, entity_type="person", name="Ada Lovelace", description="edited"),
        *(
            Entity(
                tenant_id=tenant, entity_type="person", name=f"Person {n}", description="x" * 400
            )
            for n in range(size)
        ),
    ]
    asyncio.run(stores.graph.upsert(batch))


def chunk_batch(stores: SqliteStores, tenant: TenantId, size: int) -> None:
    def chunk(index: int, text: str) -> StoredChunk:
        return StoredChunk(
            tenant_id=tenant,
            source_id="doc",
            text=text,
            index=index,
            start=0,
            end=len(text),
            embedding=[1.0, 0.0, 0.0, 0.0],
        )

    batch = [
        chunk(0, "Ada Lovelace wrote notes"),
        *(
            chunk(n + 1, f"passage {n} " + " ".join(f"w{n}x{i}" for i in range(40)))
            for n in range(size)
        ),
    ]
    asyncio.run(stores.chunks.upsert_chunks(batch))


def main() -> None:
    path, tenant, pause_after = sys.argv[1], TenantId(UUID(sys.argv[2])), int(sys.argv[3])
    target = sys.argv[4] if len(sys.argv) > 4 else "graph"
    stores = open_sqlite(path)
    # The store's own page cache (CACHE_KIB) can hold the whole batch; a small one makes the
    # batch spill pages into the WAL before the kill, which the parent checks it did.
    stores.database.connection.execute("PRAGMA cache_size=-2000")
    watched = (
        "INSERT INTO graph_entities" if target == "graph" else "INSERT INTO chunk_posting_blocks"
    )
    seen = 0

    def trace(statement: str) -> None:
        nonlocal seen
        if statement.startswith(watched):
            seen += 1
            if seen == pause_after:
                print("paused", flush=True)
                time.sleep(3600)

    stores.database.connection.set_trace_callback(trace)
    if target == "graph":
        graph_batch(stores, tenant, pause_after * 2)
    else:
        chunk_batch(stores, tenant, pause_after)
    print("finished", flush=True)


if __name__ == "__main__":
    main()
