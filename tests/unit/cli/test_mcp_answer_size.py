"""What a typical `search_entities` answer at k=5 costs an agent, against what it cost before.

"Before" is what the server sent until ADR 0175, rebuilt here from the same
client answer: the full `EntitySearchAnswer` (tenant id, query, rank, fused
score, unrounded channel scores, `null`s) as structured content, and as text
content the same JSON indented by 2 (the SDK's default). "Now" is what the
tool sends. A client gives the model one of the two: langchain-mcp-adapters
(and the SDK's own examples) the text, pydantic-ai the structured content.
Tokens are counted two ways: characters / 4, and the WordPiece tokenizer the
`local` extra ships (the MiniLM model's).
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import pytest
from mcp.server.mcpserver import MCPServer
from pydantic_core import to_json

from redstring import Entity, EntityId
from redstring.cli.mcp_server import build_server
from redstring.client import AsyncRedstring
from redstring.client.answers import EntitySearchAnswer
from redstring.client.embeddings import local_extra_installed
from redstring.client.tenants import parse_tenant
from redstring.projections.vectors import embed_entities
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryChunkStore, InMemoryGraphStore, InMemoryVectorStore, StoreSet
from tests.unit.cli.mcp_fixture_server import opener_of

TENANT = parse_tenant("size")
#: A graph of the kind `build` makes from biographies: names, one-line descriptions, aliases.
PEOPLE = [
    ("Ada Lovelace", "person", "Mathematician who wrote the first published program.", ["Ada"]),
    ("Charles Babbage", "person", "Designed the Difference and Analytical Engines.", []),
    ("Grace Hopper", "person", "Rear admiral; wrote the first compiler, A-0.", ["Amazing Grace"]),
    ("Alan Turing", "person", "Defined computability and broke Enigma at Bletchley Park.", []),
    ("Annie Easley", "person", "NASA programmer who worked on the Centaur rocket stage.", []),
    ("Remington Rand", "organization", "Maker of typewriters, then of the UNIVAC I.", []),
    ("Bletchley Park", "location", "Codebreaking centre in Buckinghamshire, England.", []),
    ("Analytical Engine", "machine", "Babbage's general-purpose mechanical computer.", []),
    ("UNIVAC I", "machine", "The first commercial computer made in the United States.", []),
    ("Harvard Mark I", "machine", "Electromechanical computer Hopper programmed in 1944.", []),
    ("NASA Lewis", "organization", "Research centre in Cleveland where Easley worked.", []),
    ("Enigma", "machine", "Rotor cipher machine used by the German military.", []),
]
QUERIES = ["Ada Lovelace", "who wrote the first compiler", "Babbage", "codebreaking", "computer"]


async def _client() -> AsyncRedstring:
    embeddings = FakeEmbeddingProvider(dimension=32)
    graph, vectors = InMemoryGraphStore(), InMemoryVectorStore(dimension=32)
    entities = [
        Entity(
            tenant_id=TENANT,
            id=EntityId(UUID(int=n + 1)),
            name=name,
            entity_type=kind,
            description=text,
            aliases=aliases,
        )
        for n, (name, kind, text, aliases) in enumerate(PEOPLE)
    ]
    await graph.upsert(entities)
    await vectors.upsert(await embed_entities(embeddings, entities))
    stores = StoreSet(
        backend="memory", graph=graph, vectors=vectors, chunks=InMemoryChunkStore(dimension=32)
    )
    opener = opener_of(stores)
    return await AsyncRedstring(
        "m", tenant=TENANT, embeddings=embeddings, create=False, opener=opener
    ).open()


def _before(answer: EntitySearchAnswer) -> list[str]:
    """The two payloads the server sent before ADR 0175 for `answer` (no `confidence` then)."""
    old: dict[str, Any] = answer.model_dump(
        mode="json", exclude={"matches": {"__all__": {"confidence"}}}
    )
    return [to_json(old, indent=2).decode(), json.dumps(old, separators=(",", ":"))]


async def _now(server: MCPServer, query: str) -> list[str]:
    arguments = {"query": query, "k": 5, "mode": "hybrid", "min_confidence": 0}
    result = await server.call_tool("search_entities", arguments)
    assert not result.is_error
    assert result.structured_content is not None
    assert len(result.structured_content["matches"]) == 5
    [content] = result.content
    assert content.type == "text"
    return [content.text, json.dumps(result.structured_content, separators=(",", ":"))]


def _counters() -> dict[str, Any]:
    counters: dict[str, Any] = {"chars/4": lambda text: len(text) / 4}
    if local_extra_installed():
        from tokenizers import Tokenizer  # noqa: PLC0415 (the local extra)

        from redstring.llm.local_embedding import packaged_files  # noqa: PLC0415

        tokenizer = Tokenizer.from_file(str(packaged_files().tokenizer))
        tokenizer.no_truncation()
        counters["MiniLM WordPiece"] = lambda text: len(tokenizer.encode(text).ids)
    return counters


@pytest.mark.asyncio
async def test_a_k5_entity_answer_is_at_most_60_percent_of_its_old_tokens() -> None:
    client = await _client()
    try:
        server = build_server(client, await client.describe())
        before: list[str] = []
        now: list[str] = []
        for query in QUERIES:
            # No threshold on either side: the sizes compare full answers of five.
            answer = await client.search(query, k=5, mode="hybrid", min_confidence=0.0)
            assert len(answer.matches) == 5
            before += _before(answer)
            now += await _now(server, query)
    finally:
        await client.close()
    for name, count in _counters().items():
        texts = sum(count(t) for t in now[::2]) / sum(count(t) for t in before[::2])
        structured = sum(count(t) for t in now[1::2]) / sum(count(t) for t in before[1::2])
        print(f"{name}: text {texts:.3f}, structured {structured:.3f}")  # ADR 0175's figures
        if name == "chars/4":
            assert texts <= 0.60, (name, texts)
            # Ids, names, types and descriptions make most of it, and `confidence` is new:
            # a ratchet at the figure measured (B173).
            assert structured <= 0.70, (name, structured)
        else:  # a tokenizer ignores the old indentation: both payloads cost alike
            assert texts <= 0.60, (name, texts)
            assert structured <= 0.60, (name, structured)
