"""The command line and the MCP server given a model of another dimension than the database's.

`redstring passages --mode lexical` answers (no vector is read); a search that
embeds fails on one line naming `--embeddings none`; `redstring mcp` refuses
to start, with that line, rather than serve tools whose every search fails.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from redstring import AsyncRedstring
from redstring.cli.mcp_server import open_server
from redstring.errors import DimensionMismatchError
from redstring.providers import FakeEmbeddingProvider
from tests.hang_guard import HANG_GUARD_SECONDS
from tests.unit.cli.console import ROOT, assert_one_error_line, clean_env, in_process
from tests.unit.cli.console import Ran as Finished
from tests.unit.cli.mcp_fixture_server import opener_of
from tests.unit.cli.world import DIMENSION, HOME, populated_stores

#: The local model's dimension: what the command line embeds with by default.
LOCAL = 384
#: An 8-dimension model server that is never called: the refusals come first.
OPENAI_AT_8 = {
    "REDSTRING_EMBEDDINGS": "openai",
    "REDSTRING_EMBED_BASE_URL": "http://127.0.0.1:9/v1",
    "REDSTRING_EMBED_MODEL": "e",
    "REDSTRING_EMBED_DIMENSION": "8",
}


def _names_the_way_out(line: str, *, stored: int, model: int) -> None:
    assert f"the database holds {stored}-dimension vectors" in line
    assert f"the embedding model makes {model}-dimension ones" in line
    assert "the --embeddings settings the database was written with" in line
    assert "--embeddings none" in line
    assert "Retriever" not in line


def test_a_lexical_passage_search_answers_whatever_the_model(written_at_64: Path) -> None:
    ran = in_process(
        "passages", "Lovelace", "--db", str(written_at_64), "--mode", "lexical", "--json", env={}
    )
    assert ran.status == 0, ran.err
    assert '"source_id": "ada.md"' in ran.out


def test_a_passage_search_that_embeds_fails_on_one_line_naming_embeddings_none(
    written_at_64: Path,
) -> None:
    ran = in_process("passages", "Lovelace", "--db", str(written_at_64), env=OPENAI_AT_8)
    line = assert_one_error_line(ran)
    _names_the_way_out(line, stored=64, model=8)


@pytest.mark.asyncio
async def test_the_server_refuses_a_model_of_another_dimension_at_start() -> None:
    stores, _ = await populated_stores()
    other = FakeEmbeddingProvider(dimension=DIMENSION * 2)
    async with AsyncRedstring(
        "in-memory", tenant=HOME, embeddings=other, create=False, opener=opener_of(stores)
    ) as client:
        with pytest.raises(DimensionMismatchError) as refused:
            await open_server(client)
    assert refused.value.name == "embeddings"
    assert (refused.value.expected, refused.value.actual) == (DIMENSION, DIMENSION * 2)


def test_redstring_mcp_with_the_default_model_on_a_64_dimension_database_exits_on_one_line(
    written_at_64: Path,
) -> None:
    # The QA reproduction: the local model (384) over a database embedded at 64. The
    # server is given no input, so a server that started would end at once, status 0.
    done = subprocess.run(
        [sys.executable, "-m", "redstring.cli", "mcp", "--db", str(written_at_64)],
        cwd=ROOT,
        env=clean_env(REDSTRING_EMBEDDINGS="local"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )
    line = assert_one_error_line(Finished(done.returncode, done.stdout, done.stderr))
    assert line.startswith("redstring: error: ")
    _names_the_way_out(line, stored=64, model=LOCAL)
