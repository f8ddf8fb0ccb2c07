"""The command line and the MCP server given another embedding model of the database's
dimension than the one that embedded its entities.

`redstring search` fails on one line naming the model that embedded them,
`redstring build` and `--embeddings none`; `--mode lexical` answers; `redstring
mcp` refuses to start with that line, even when that model embedded the
passages. The model server is never called: the refusals come before any
query is embedded.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from uuid import UUID

import pytest

from redstring import AsyncRedstring, Entity, EntityId
from redstring.cli.mcp_server import open_server
from redstring.client.tenants import DEFAULT_TENANT
from redstring.domain.events import DocumentExtracted
from redstring.errors import EmbeddingModelMismatchError
from redstring.projections.graph import GraphProjection
from redstring.projections.vectors import VectorProjection, embedded_event
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import open_sqlite
from tests.hang_guard import HANG_GUARD_SECONDS
from tests.unit.cli.console import ROOT, assert_one_error_line, clean_env, in_process
from tests.unit.cli.console import Ran as Finished
from tests.unit.written_elsewhere import NOTE

DIMENSION = 64
#: A model server at the database's dimension under another model's name, never called.
OPENAI_AT_64 = {
    "REDSTRING_EMBEDDINGS": "openai",
    "REDSTRING_EMBED_BASE_URL": "http://127.0.0.1:9/v1",
    "REDSTRING_EMBED_MODEL": "e",
    "REDSTRING_EMBED_DIMENSION": str(DIMENSION),
}


class OtherModel(FakeEmbeddingProvider):
    @property
    def model(self) -> str:
        return "another-model"


@pytest.fixture
def entities_at_64(tmp_path: Path) -> Path:
    """A SQLite file whose two entities `FakeEmbeddingProvider` embedded at 64 dimensions,
    folded as a build folds them (no passage)."""
    db = tmp_path / "e64.db"
    entities = [
        Entity(id=EntityId(UUID(int=n)), tenant_id=DEFAULT_TENANT, entity_type="person", name=name)
        for n, name in ((1, "Ada Lovelace"), (2, "Charles Babbage"))
    ]

    async def write() -> None:
        async with open_sqlite(db, dimension=DIMENSION) as stores:
            await GraphProjection(stores.graph).apply(
                DocumentExtracted(
                    tenant_id=DEFAULT_TENANT, document_id="d", entities=entities, relationships=[]
                )
            )
            provider = FakeEmbeddingProvider(dimension=DIMENSION)
            event = await embedded_event(provider, entities, DEFAULT_TENANT)
            await VectorProjection(stores.vectors).apply(event)

    asyncio.run(write())
    return db


def _names_the_way_out(line: str) -> None:
    assert line.startswith("redstring: error: ")
    assert "the entities of this tenant were embedded by fake-hashed-words (2 entities)" in line
    assert "the embedding model is e," in line
    assert "Run `redstring build` on the documents again with these --embeddings settings" in line
    assert "--embeddings none" in line
    assert 'mode="lexical"' not in line  # the client's argument, not a flag


def test_an_entity_search_under_another_model_fails_on_one_line(entities_at_64: Path) -> None:
    ran = in_process("search", "Lovelace", "--db", str(entities_at_64), env=OPENAI_AT_64)
    _names_the_way_out(assert_one_error_line(ran))


def test_a_lexical_entity_search_under_another_model_answers(entities_at_64: Path) -> None:
    ran = in_process(
        "search", "Ada Lovelace", "--db", str(entities_at_64), "--mode", "lexical", "--json",
        env=OPENAI_AT_64,
    )  # fmt: skip
    assert ran.status == 0, ran.err
    assert '"name": "Ada Lovelace"' in ran.out


@pytest.mark.asyncio
async def test_the_server_refuses_a_model_that_embedded_the_passages_but_not_the_entities(
    entities_at_64: Path,
) -> None:
    db = str(entities_at_64)
    async with AsyncRedstring(db, embeddings=OtherModel(dimension=DIMENSION)) as client:
        await client.index([NOTE])  # the passages are this model's
        with pytest.raises(EmbeddingModelMismatchError) as refused:
            await open_server(client)
    async with AsyncRedstring(
        db, embeddings=FakeEmbeddingProvider(dimension=DIMENSION), create=False
    ) as other:
        with pytest.raises(EmbeddingModelMismatchError) as passages:
            await open_server(other)  # its entities, another's passages
    assert (refused.value.name, refused.value.items) == ("embeddings", "entities")
    assert refused.value.stored == {"fake-hashed-words": 2}
    assert (passages.value.items, passages.value.stored) == ("passages", {"another-model": 1})


def test_redstring_mcp_under_another_model_exits_on_one_line(entities_at_64: Path) -> None:
    # Given no input, a server that started would end at once with status 0.
    done = subprocess.run(
        [sys.executable, "-m", "redstring.cli", "mcp", "--db", str(entities_at_64)],
        cwd=ROOT,
        env=clean_env(**OPENAI_AT_64),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )
    _names_the_way_out(assert_one_error_line(Finished(done.returncode, done.stdout, done.stderr)))
