"""`open_postgres`'s stores print their schema and dimension, never the URL (issue 15)."""

from __future__ import annotations

import uuid

import pytest


@pytest.mark.asyncio
async def test_postgres_stores_print_their_schema_and_dimension_never_the_url(
    postgres_url: str,
) -> None:
    from redstring.stores import open_postgres  # noqa: PLC0415 (the postgres extra)

    schema = f"shown_{uuid.uuid4().hex[:8]}"
    stores = await open_postgres(postgres_url, dimension=4, schema=schema)
    try:
        shown = repr(stores)
        assert shown == f"<PostgresStores schema={schema} dimension=4>"
        assert postgres_url not in shown
    finally:
        await stores.close()
