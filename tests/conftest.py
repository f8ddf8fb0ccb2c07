"""Session fixtures: one real PostgreSQL server for every Postgres test.

Hypothesis draws the same examples on every run (`derandomize`) and replays
no saved ones, so a run's verdict depends on the code alone;
`HYPOTHESIS_PROFILE=explore` draws new ones for a search by hand.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.cores import usable_cores
from tests.postgres_server import new_database, running_server
from tests.schema_pool import SchemaPool

settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` starts a worker per usable core (`PYTEST_XDIST_AUTO_NUM_WORKERS` still wins)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist reads it
    return usable_cores()


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
