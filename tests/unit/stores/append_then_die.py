"""Append one extraction to the log of a SQLite file, then SIGKILL this process before any fold.

Usage: append_then_die.py PATH TENANT_UUID. The death between `append` and the
projections' fold is the crash ADR 0132 and B130 are about.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from uuid import UUID

from redstring import Entity, TenantId
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.events import DocumentExtracted


async def main(path: str, tenant: TenantId) -> None:
    stores = open_sqlite(path)
    ada = Entity(tenant_id=tenant, entity_type="person", name="Ada Lovelace")
    await stores.events.append(
        [DocumentExtracted(tenant_id=tenant, document_id="doc", entities=[ada], relationships=[])]
    )
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], TenantId(UUID(sys.argv[2]))))
