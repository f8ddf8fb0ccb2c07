"""Child process of the persistence test: writes a small graph and vectors, then exits."""

from __future__ import annotations

import asyncio
import sys
from uuid import UUID

from redstring import Entity, Relationship, TenantId
from redstring.composition.sqlite_stores import open_sqlite
from redstring.ports import VectorRecord


async def main() -> None:
    path, tenant = sys.argv[1], TenantId(UUID(sys.argv[2]))
    stores = open_sqlite(path, dimension=4)
    ada = Entity(tenant_id=tenant, entity_type="person", name="Ada Lovelace", aliases=["Ada"])
    charles = Entity(tenant_id=tenant, entity_type="person", name="Charles Babbage")
    knows = Relationship(
        tenant_id=tenant, source_id=ada.id, target_id=charles.id, relationship_type="knows"
    )
    await stores.graph.upsert([ada, charles], [knows])
    await stores.vectors.upsert(
        [
            VectorRecord(
                tenant_id=tenant, entity_id=ada.id, entity_type="person", vector=[1, 0, 0, 0]
            ),
            VectorRecord(
                tenant_id=tenant, entity_id=charles.id, entity_type="person", vector=[0, 1, 0, 0]
            ),
        ]
    )
    await stores.close()


if __name__ == "__main__":
    asyncio.run(main())
