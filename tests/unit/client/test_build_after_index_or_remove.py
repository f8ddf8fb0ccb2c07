"""A document built again retires what it no longer names, whatever ran between the builds.

The QA reproduction: a document is built, edited, then indexed (which gives
its changed passage a new row naming no entity) or removed (which deletes its
rows), and built again. What it named before is the graph's own record
(`source_document_ids`), so Remington Rand and the relationships only it
stated are retired, Charles Babbage (still named by another document) only
loses it as a source, and a replay of the log agrees. Every backend is driven
through the client, with a second tenant holding the very same document ids
built once and never touched.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from redstring import AsyncRedstring, SourceDocument
from redstring.client.store_set import StoreOpener
from redstring.providers import FakeLlmProvider
from tests.unit.client.memory_stores import memory_opener

DIMENSION = 16
MINE, THEIRS = "mine", "theirs"

ENGINE = SourceDocument(id="notes/a.md", text="Charles Babbage designed the Analytical Engine.")
MET = SourceDocument(id="notes/b.md", text="Grace Hopper met Charles Babbage at Remington Rand.")
SAILED = SourceDocument(id="notes/b.md", text="Grace Hopper sailed with the United States Navy.")


def _item(name: str, kind: str) -> dict[str, str]:
    return {"name": name, "type": kind}


def _link(source: str, kind: str, target: str) -> dict[str, str]:
    return {"source": source, "target": target, "type": kind}


ANSWERS: dict[str, Any] = {
    "Analytical Engine": {
        "entities": [_item("Charles Babbage", "person"), _item("Analytical Engine", "product")],
        "relationships": [_link("Charles Babbage", "created", "Analytical Engine")],
    },
    "Remington Rand": {
        "entities": [
            _item("Grace Hopper", "person"),
            _item("Charles Babbage", "person"),
            _item("Remington Rand", "organization"),
        ],
        "relationships": [
            _link("Grace Hopper", "related_to", "Charles Babbage"),
            _link("Grace Hopper", "works_for", "Remington Rand"),
        ],
    },
    "United States Navy": {
        "entities": [_item("Grace Hopper", "person"), _item("United States Navy", "organization")],
        "relationships": [_link("Grace Hopper", "works_for", "United States Navy")],
    },
}

Client = Callable[[str], AsyncRedstring]


def _memory_opener() -> StoreOpener:
    return memory_opener(DIMENSION)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def client_of(request: pytest.FixtureRequest, tmp_path: Path) -> Client:
    """A client of a tenant, every tenant in one database of the backend asked for."""
    if request.param == "memory":
        opener = _memory_opener()
        return lambda tenant: AsyncRedstring(
            "memory", tenant=tenant, embeddings="none", opener=opener
        )
    if request.param == "sqlite":
        db = str(tmp_path / "x.db")
        return lambda tenant: AsyncRedstring(db, tenant=tenant, embeddings="none")
    url: str = request.getfixturevalue("postgres_url")
    suffix = tmp_path.name  # a tenant pair of its own within the module's database
    return lambda tenant: AsyncRedstring(url, tenant=f"{tenant}-{suffix}", embeddings="none")


async def _graph(rs: AsyncRedstring) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Each entity's name -> its sources, and each relationship as "a kind b" -> its sources."""
    graph = (await rs._open("test")).graph
    entities = await graph.list_entities(rs.tenant_id)
    names = {entity.id: entity.name for entity in entities}
    return (
        {entity.name: entity.source_document_ids for entity in entities},
        {
            f"{names[r.source_id]} {r.relationship_type} {names[r.target_id]}": (
                r.source_document_ids
            )
            for r in await graph.list_relationships(rs.tenant_id)
        },
    )


BEFORE = (
    {
        "Analytical Engine": ["notes/a.md"],
        "Charles Babbage": ["notes/a.md", "notes/b.md"],
        "Grace Hopper": ["notes/b.md"],
        "Remington Rand": ["notes/b.md"],
    },
    {
        "Charles Babbage created Analytical Engine": ["notes/a.md"],
        "Grace Hopper related_to Charles Babbage": ["notes/b.md"],
        "Grace Hopper works_for Remington Rand": ["notes/b.md"],
    },
)
AFTER = (
    {
        "Analytical Engine": ["notes/a.md"],
        "Charles Babbage": ["notes/a.md"],
        "Grace Hopper": ["notes/b.md"],
        "United States Navy": ["notes/b.md"],
    },
    {
        "Charles Babbage created Analytical Engine": ["notes/a.md"],
        "Grace Hopper works_for United States Navy": ["notes/b.md"],
    },
)


@pytest.mark.parametrize("between", ["nothing", "index", "remove", "remove_then_index"])
def test_a_document_built_again_retires_what_it_no_longer_names(
    client_of: Client, between: str
) -> None:
    model = FakeLlmProvider(by_substring=ANSWERS)

    async def scenario() -> None:
        async with client_of(MINE) as mine, client_of(THEIRS) as theirs:
            for rs in (mine, theirs):
                await rs.build([ENGINE, MET], model=model, domain="general")
                assert await _graph(rs) == BEFORE
            if between == "index":
                await mine.index([ENGINE, SAILED])
            elif between.startswith("remove"):
                assert await mine.remove(MET.id) == 1
                if between == "remove_then_index":
                    await mine.index([SAILED])
            report = await mine.build([SAILED], model=model, domain="general")
            assert (report.entities_retired, report.relationships_retired) == (1, 2)
            assert await _graph(mine) == AFTER
            catalogue = await mine.describe()
            assert (catalogue.entities, catalogue.relationships) == (4, 2)
            # The log holds the retirement, so a replay rebuilds the same graph.
            await mine.rebuild()
            assert await _graph(mine) == AFTER
            # The other tenant, holding the very same document ids, is untouched.
            assert await _graph(theirs) == BEFORE

    asyncio.run(scenario())
