"""`Redstring.build` against a loopback model: a graph, or a loud failure before any chunk."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import pytest

from redstring import AsyncRedstring, Redstring
from redstring.domain.errors import (
    BuildFailedError,
    ModelServerStatusError,
    ModelServerUnreachableError,
)
from redstring.providers import FakeEmbeddingProvider
from tests.unit.adapters.openai_protocol_server import Reply, ScriptedServer, error, serve
from tests.unit.adapters.server_profiles import hardest
from tests.unit.cli.sample_model import behaving_as, script

DOCS = Path(__file__).resolve().parents[3] / "src" / "redstring" / "sample_docs"
EVERY_CHUNK = "Passage 1 of 1"  # in every extraction prompt of the one-chunk samples


def chats(server: ScriptedServer) -> list[dict[str, Any]]:
    return server.calls("/chat/completions")


def test_a_build_gives_entities_to_search_and_their_neighbours(tmp_path: Path) -> None:
    embeddings = FakeEmbeddingProvider(dimension=16)
    with (
        serve(script, lifetime=300) as server,
        Redstring(tmp_path / "g.db", embeddings=embeddings) as rs,
    ):
        report = rs.build(DOCS, model="m", base_url=server.base_url)
        assert report.entities_written > 0
        answer = rs.search("Ada Lovelace", k=3)
        assert answer.mode.value == "hybrid"
        top = answer.matches[0]
        assert top.name == "Ada Lovelace"
        detail = rs.entity(top.id)
        assert "Charles Babbage" in {row["name"] for row in detail.to_dicts()}
        assert str(detail).startswith("Ada Lovelace (person)")


def _unknown_model(path: str, request: dict[str, Any], number: int) -> Reply:
    return error(404, "The model `m` does not exist.")


def test_a_server_without_the_model_raises_before_any_chunk(tmp_path: Path) -> None:
    with serve(_unknown_model) as server, Redstring(tmp_path / "g.db", embeddings="none") as rs:
        with pytest.raises(ModelServerStatusError, match="404"):
            rs.build(DOCS, model="m", base_url=server.base_url)
        assert len(chats(server)) == 1  # the preflight only
        assert rs.stats().to_dicts()[0]["entities"] == 0


def test_an_unreachable_server_raises_from_the_async_client(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def scenario() -> None:
        async with AsyncRedstring(tmp_path / "g.db", embeddings="none") as rs:
            await rs.build(DOCS, model="m", base_url=f"http://127.0.0.1:{port}/v1")

    with pytest.raises(ModelServerUnreachableError):
        asyncio.run(scenario())


def test_all_chunks_failing_raises_unless_partial_results_are_asked_for(tmp_path: Path) -> None:
    profile = hardest(EVERY_CHUNK)
    with (
        serve(behaving_as(profile), serial=profile.serial) as server,
        Redstring(tmp_path / "g.db", embeddings="none") as rs,
    ):
        with pytest.raises(BuildFailedError, match="5 of 5 chunks failed") as failed:
            rs.build(DOCS, model="m", base_url=server.base_url)
        assert failed.value.report is not None
        report = rs.build(DOCS, model="m", base_url=server.base_url, max_failed_share=1.0)
    assert report.failure_causes == {"TruncatedCompletionError": 5}
