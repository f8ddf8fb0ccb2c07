"""The command line and the MCP server given another embedding model of the database's
dimension than the one that embedded its passages.

`redstring passages` fails on one line naming the model that embedded them,
`redstring index` and `--embeddings none`; `--mode lexical` answers; `redstring
mcp` refuses to start with that line. The model server is never called: the
refusals come before any query is embedded.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from redstring import AsyncRedstring
from redstring.cli.mcp_server import open_server
from redstring.client.stores import open_store_set
from redstring.errors import EmbeddingModelMismatchError
from redstring.providers import FakeEmbeddingProvider
from tests.hang_guard import HANG_GUARD_SECONDS
from tests.unit.cli.console import ROOT, assert_one_error_line, clean_env, in_process
from tests.unit.cli.console import Ran as Finished
from tests.unit.written_elsewhere import NOTE

#: A model server at the database's dimension (64) under another model's name, never called.
OPENAI_AT_64 = {
    "REDSTRING_EMBEDDINGS": "openai",
    "REDSTRING_EMBED_BASE_URL": "http://127.0.0.1:9/v1",
    "REDSTRING_EMBED_MODEL": "e",
    "REDSTRING_EMBED_DIMENSION": "64",
}


def _names_the_way_out(line: str) -> None:
    assert line.startswith("redstring: error: ")
    assert "the passages of this tenant were embedded by fake-hashed-words (1 passage)" in line
    assert "the embedding model is e," in line
    assert "Run `redstring index` on the documents again with these --embeddings settings" in line
    assert "--embeddings none" in line
    assert 'mode="lexical"' not in line  # the client's argument, not a flag


def test_a_passage_search_under_another_model_fails_on_one_line(written_at_64: Path) -> None:
    ran = in_process("passages", "Lovelace", "--db", str(written_at_64), env=OPENAI_AT_64)
    _names_the_way_out(assert_one_error_line(ran))


def test_a_lexical_passage_search_under_another_model_answers(written_at_64: Path) -> None:
    ran = in_process(
        "passages", "Lovelace", "--db", str(written_at_64), "--mode", "lexical", "--json",
        env=OPENAI_AT_64,
    )  # fmt: skip
    assert ran.status == 0, ran.err
    assert '"source_id": "ada.md"' in ran.out


@pytest.mark.asyncio
async def test_the_server_refuses_another_model_at_start(tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    async with AsyncRedstring(db, embeddings=FakeEmbeddingProvider(dimension=64)) as client:
        await client.index([NOTE])

    class OtherModel(FakeEmbeddingProvider):
        @property
        def model(self) -> str:
            return "another-model"

    async with AsyncRedstring(
        db, embeddings=OtherModel(dimension=64), create=False, opener=open_store_set
    ) as client:
        with pytest.raises(EmbeddingModelMismatchError) as refused:
            await open_server(client)
        async with AsyncRedstring(
            db, embeddings=FakeEmbeddingProvider(dimension=64), create=False
        ) as same:
            assert await open_server(same) is not None  # the model that wrote them starts
    assert refused.value.name == "embeddings"
    assert refused.value.stored == {"fake-hashed-words": 1}


def test_redstring_mcp_under_another_model_exits_on_one_line(written_at_64: Path) -> None:
    # Given no input, a server that started would end at once with status 0.
    done = subprocess.run(
        [sys.executable, "-m", "redstring.cli", "mcp", "--db", str(written_at_64)],
        cwd=ROOT,
        env=clean_env(**OPENAI_AT_64),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )
    _names_the_way_out(assert_one_error_line(Finished(done.returncode, done.stdout, done.stderr)))
