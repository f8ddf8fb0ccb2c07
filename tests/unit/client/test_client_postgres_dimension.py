"""A client without embeddings on a new PostgreSQL database: a writer makes it, a reader refuses.

The writer is the blocking client, so these also close a `Redstring` on PostgreSQL,
whose connection pool keeps tasks of its own on the client's loop.
"""

from __future__ import annotations

import asyncio

import pytest

from redstring import Redstring
from redstring.client.embeddings import UNEMBEDDED_DIMENSION
from redstring.composition.postgres_stores import open_postgres
from redstring.domain.document import SourceDocument
from redstring.errors import DimensionRequiredError
from tests.postgres_server import new_database

ADA = SourceDocument(id="ada.txt", text="Ada Lovelace wrote about the Analytical Engine.")


async def _recorded_dimension(url: str) -> int:
    async with await open_postgres(url) as stores:
        return stores.vectors.dimension


def test_an_unembedded_writer_makes_a_new_database_at_the_unembedded_dimension(
    postgres_server_url: str,
) -> None:
    with new_database(postgres_server_url) as url:
        with Redstring(url, embeddings="none") as rs:
            rs.index([ADA])
        assert asyncio.run(_recorded_dimension(url)) == UNEMBEDDED_DIMENSION
        with Redstring(url, embeddings="none", create=False) as rs:
            [tenant] = rs.stats().to_dicts()
            assert tenant["chunks"] == 1
            [hit] = rs.passages("Analytical Engine", mode="lexical").to_dicts()
            assert hit["source_id"] == "ada.txt"


def test_a_client_that_may_not_create_refuses_a_new_database_without_a_dimension(
    postgres_server_url: str,
) -> None:
    with (
        new_database(postgres_server_url) as url,
        pytest.raises(DimensionRequiredError, match="dimension"),
    ):
        Redstring(url, embeddings="none", create=False)
