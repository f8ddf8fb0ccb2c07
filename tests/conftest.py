"""Session fixtures: one real PostgreSQL server for every Postgres test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.postgres_server import new_database, running_server
from tests.schema_pool import SchemaPool


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """A server URL: `TEST_DATABASE_URL` if set, else an embedded server stopped at the end."""
    with running_server() as url:
        yield url


@pytest.fixture(scope="module")
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """A new database private to one test module, dropped after it."""
    with new_database(postgres_server_url) as url:
        yield url


@pytest.fixture(scope="module")
def schema_pool(postgres_url: str) -> SchemaPool:
    """Schemas of the module's database a finished test left, emptied for the next."""
    return SchemaPool(postgres_url)
