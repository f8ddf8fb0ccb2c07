"""The MCP server over the two-tenant in-memory world: in process, or served over stdio.

Run as `python -m tests.unit.cli.mcp_fixture_server [lexical]` from the repository
root to serve `HOME` over stdio; `lexical` serves it without an embedding provider.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from redstring.cli.mcp_server import serve_stdio
from redstring.client import AsyncRedstring
from redstring.client.store_set import StoreOpener, StoreSet
from redstring.domain.ids import TenantId
from tests.unit.cli.world import HOME, populated_stores


def opener_of(stores: StoreSet) -> StoreOpener:
    """An opener handing out `stores` whatever it is asked to open."""

    @asynccontextmanager
    async def opener(
        db: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None = None
    ) -> AsyncIterator[StoreSet]:
        yield stores

    return opener


@asynccontextmanager
async def world_client(
    *, lexical: bool = False, tenant: TenantId = HOME
) -> AsyncIterator[AsyncRedstring]:
    """A read-only client of `tenant` over a fresh copy of the world."""
    stores, embeddings = await populated_stores()
    client = AsyncRedstring(
        "in-memory",
        tenant=tenant,
        embeddings="none" if lexical else embeddings,
        create=False,
        opener=opener_of(stores),
    )
    async with client:
        yield client


async def _main(lexical: bool) -> None:
    async with world_client(lexical=lexical) as client:
        await serve_stdio(client)


if __name__ == "__main__":
    asyncio.run(_main(lexical=sys.argv[1:] == ["lexical"]))
