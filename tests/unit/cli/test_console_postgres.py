"""The console script on a PostgreSQL URL: the same commands, the other backend."""

from __future__ import annotations

import asyncio
import json

import pytest

from redstring import Entity
from redstring.client.tenants import DEFAULT_TENANT, parse_tenant
from redstring.composition.postgres_stores import open_postgres
from redstring.errors import DimensionRequiredError
from tests.postgres_server import new_database
from tests.unit.adapters.openai_protocol_server import serve
from tests.unit.cli.console import SAMPLES, clean_env, redstring
from tests.unit.cli.sample_model import DIMENSION, script


def test_build_search_and_stats_on_a_postgres_url(postgres_url: str) -> None:
    with serve(script) as server:
        env = clean_env(
            REDSTRING_EMBEDDINGS="openai",
            REDSTRING_EMBED_BASE_URL=server.base_url,
            REDSTRING_EMBED_MODEL="scripted-embed",
            REDSTRING_EMBED_DIMENSION=str(DIMENSION),
        )
        common = ["--db", postgres_url, "--tenant", "pg"]
        built = redstring(
            "build",
            str(SAMPLES / "grace_hopper.md"),
            *common,
            "--quiet",
            "--llm-base-url",
            server.base_url,
            "--llm-model",
            "m",
            env=env,
        )
        found = redstring("search", "Grace Hopper", *common, "-k", "1", "--json", env=env)
        counted = redstring("stats", *common, "--json", env=env)
        passages = redstring("passages", "Remington Rand", *common, "--mode", "lexical", env=env)
    assert built.status == 0, built.err
    assert "entities       3" in built.out
    assert found.status == 0, found.err
    [hit] = json.loads(found.out)["matches"]
    assert (hit["name"], hit["type"]) == ("Grace Hopper", "person")
    assert hit["semantic"] is not None
    assert hit["lexical"] is not None
    answer = json.loads(counted.out)
    assert answer["backend"] == "PostgreSQL"
    [tenant] = answer["tenants"]
    assert tenant["tenant_id"] == str(parse_tenant("pg"))
    assert (tenant["entities"], tenant["relationships"], tenant["entity_vectors"]) == (3, 2, 3)
    assert tenant["chunks"] == 1
    assert passages.status == 0, passages.err
    assert "  grace_hopper.md #0" in passages.out  # a file named alone: its own name


def test_reading_commands_open_postgres_at_the_dimension_it_records(
    postgres_server_url: str,
) -> None:
    with new_database(postgres_server_url) as url:
        _read_a_database_written_at_dimension_8(url)


def _read_a_database_written_at_dimension_8(postgres_url: str) -> None:
    async def write() -> None:
        async with await open_postgres(postgres_url, dimension=8) as stores:
            ada = Entity(tenant_id=DEFAULT_TENANT, entity_type="person", name="Ada Lovelace")
            await stores.graph.upsert([ada])

    asyncio.run(write())
    counted = redstring("stats", "--db", postgres_url, "--json")
    found = redstring("search", "Ada Lovelace", "--db", postgres_url, "--embeddings", "none")
    assert (counted.status, counted.err) == (0, "")
    assert json.loads(counted.out)["tenants"][0]["entities"] == 1
    assert (found.status, found.err) == (0, "")
    assert found.out.splitlines()[0] == "1 entity for 'Ada Lovelace' (lexical)"


@pytest.mark.asyncio
async def test_open_postgres_takes_the_recorded_dimension_and_refuses_a_new_schema_without_one(
    postgres_url: str,
) -> None:
    with pytest.raises(DimensionRequiredError, match="dimension=N"):
        await open_postgres(postgres_url, schema="fresh")
    await (await open_postgres(postgres_url, dimension=8, schema="kept")).close()
    async with await open_postgres(postgres_url, schema="kept") as stores:
        assert stores.vectors.dimension == 8
        assert stores.chunks.dimension == 8
