"""Every command closes the HTTP client of the embedding provider it built (issue 17)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from redstring.cli.main import main
from redstring.cli.providers import close_embeddings
from redstring.llm.openai_compatible import OpenAICompatibleEmbeddingProvider
from tests.unit.adapters.openai_protocol_server import Reply, embeddings, serve

DIMENSION = 8


def vectors(path: str, request: dict[str, Any], number: int) -> Reply:
    return embeddings(request, DIMENSION)


@pytest.mark.asyncio
async def test_close_embeddings_closes_a_server_provider_and_passes_over_the_others() -> None:
    with serve(vectors) as server:
        provider = OpenAICompatibleEmbeddingProvider(
            base_url=server.base_url, model="e", dimension=DIMENSION
        )
        await provider.embed(["Ada Lovelace"])
        client = provider._transport._client
        assert client is not None
        assert not client.is_closed()
        await close_embeddings(provider)
        assert client.is_closed()
    await close_embeddings(None)


@pytest.mark.parametrize(
    "command",
    [
        ["index", "src/redstring/sample_docs"],
        ["search", "Ada Lovelace"],
        ["passages", "Ada Lovelace"],
    ],
)
def test_a_command_closes_the_embedding_provider_it_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    closed: list[str] = []
    real_close = OpenAICompatibleEmbeddingProvider.aclose

    async def recording_close(self: OpenAICompatibleEmbeddingProvider) -> None:
        closed.append(self.model)
        await real_close(self)

    monkeypatch.setattr(OpenAICompatibleEmbeddingProvider, "aclose", recording_close)
    db = str(tmp_path / "g.db")
    with serve(vectors) as server:
        env = {
            "REDSTRING_EMBEDDINGS": "openai",
            "REDSTRING_EMBED_BASE_URL": server.base_url,
            "REDSTRING_EMBED_MODEL": "e",
            "REDSTRING_EMBED_DIMENSION": str(DIMENSION),
        }
        out, err = io.StringIO(), io.StringIO()
        if command[0] != "index":  # the searches need a database to read
            index = ["index", "src/redstring/sample_docs", "--db", db, "--quiet"]
            assert main(index, env=env, stdout=io.StringIO(), stderr=io.StringIO()) == 0
            closed.clear()
        quiet = ["--quiet"] if command[0] == "index" else []
        status = main([*command, "--db", db, *quiet], env=env, stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    assert closed == ["e"]
