"""Child process of the crash test: starts a big batch on a SQLite file and stalls inside it.

Usage: python crash_writer.py PATH TENANT PAUSE_AFTER. It upserts many new
entities (and an edit of an existing one) as one batch. A trace callback on
the store's connection counts entity inserts; after PAUSE_AFTER of them it
prints "paused" and sleeps inside the open transaction, for the parent to
SIGKILL it there.
"""

from __future__ import annotations

import asyncio
import sys
import time
from uuid import UUID

from redstring import Entity, TenantId
from redstring.composition.sqlite_stores import open_sqlite


def main() -> None:
    path, tenant, pause_after = sys.argv[1], TenantId(UUID(sys.argv[2])), int(sys.argv[3])
    stores = open_sqlite(path)
    seen = 0

    def trace(statement: str) -> None:
        nonlocal seen
        if statement.startswith("INSERT INTO graph_entities"):
            seen += 1
            if seen == pause_after:
                print("paused", flush=True)
                time.sleep(3600)

    stores.database.connection.set_trace_callback(trace)
    batch = [
        Entity(tenant_id=tenant, entity_type="person", name="Ada Lovelace", description="edited"),
        *(
            Entity(
                tenant_id=tenant, entity_type="person", name=f"Person {n}", description="x" * 400
            )
            for n in range(pause_after * 2)
        ),
    ]
    asyncio.run(stores.graph.upsert(batch))
    print("finished", flush=True)


if __name__ == "__main__":
    main()
