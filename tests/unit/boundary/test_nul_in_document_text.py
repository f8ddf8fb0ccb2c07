"""A NUL in a document's text is read as a space, alike in every store, and nothing is lost.

SQLite and memory stored a passage holding a NUL (`"\\x00"`) and PostgreSQL,
whose text holds none, refused it with an untyped `StoreOperationError`, so
`index` of the same document worked on one store and failed on the other. The
chunker reads a NUL as whitespace: no passage holds one, every word around it
is kept and found, its offsets still index the text as given, and the same
text indexed again is unchanged. Two tenants hold the same document id.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from uuid import uuid4

import pytest

from redstring import AsyncRedstring, SourceDocument, index_documents, new_tenant_id
from redstring.errors import InvalidArgumentError
from redstring.providers import FakeLlmProvider
from tests.unit.boundary.conftest import Stores

BOB = "\x00Bob\x00Smith wrote the ledger.\x00"
EVE = "Eve Jones\x00kept the\x00\x00ledger."


@pytest.mark.asyncio
async def test_a_nul_in_a_documents_text_is_stored_as_a_space_in_every_store(
    stores: Stores,
) -> None:
    first, second = new_tenant_id(), new_tenant_id()
    for tenant, text in ((first, BOB), (second, EVE)):
        report = await index_documents(
            [SourceDocument(id="b.txt", text=text)], chunks=stores.chunks, tenant_id=tenant
        )
        assert (report.documents, report.chunks_written) == (1, 1)
    [bob] = await stores.chunks.chunks_of_source("b.txt", first)
    [eve] = await stores.chunks.chunks_of_source("b.txt", second)
    assert (bob.text, bob.start, bob.end) == ("Bob Smith wrote the ledger.", 1, 28)
    assert (eve.text, eve.start, eve.end) == ("Eve Jones kept the  ledger.", 0, 27)
    assert BOB[bob.start : bob.end].replace("\x00", " ") == bob.text
    for tenant, text in ((first, BOB), (second, EVE)):
        again = await index_documents(
            [SourceDocument(id="b.txt", text=text)], chunks=stores.chunks, tenant_id=tenant
        )
        assert (again.unchanged, again.chunks_written) == (1, 0)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return ":memory:" if request.param == "memory" else str(tmp_path / "nul.db")


def test_the_client_indexes_and_finds_the_words_around_a_nul_in_every_store(db: str) -> None:
    tenants = [f"nul-{uuid4().hex}", f"nul-{uuid4().hex}"]  # the PostgreSQL database is shared

    async def scenario() -> list[tuple[object, ...]]:
        seen: list[tuple[object, ...]] = []
        async with (
            AsyncRedstring(db, tenant=tenants[0], embeddings="none") as bob,
            AsyncRedstring(db, tenant=tenants[1], embeddings="none") as eve,
        ):
            for rs, text in ((bob, BOB), (eve, EVE)):
                written = await rs.index(SourceDocument(id="b.txt", text=text))
                again = await rs.index(SourceDocument(id="b.txt", text=text))
                seen.append((written.chunks_written, again.unchanged, again.chunks_written))
            for rs, query in ((bob, "smith"), (eve, "jones"), (eve, "smith"), (bob, "kept")):
                found = await rs.passages(query, mode="lexical")
                seen.append(tuple((hit.source_id, hit.text) for hit in found.matches))
        return seen

    assert asyncio.run(scenario()) == [
        (1, 1, 0),
        (1, 1, 0),
        (("b.txt", "Bob Smith wrote the ledger."),),
        (("b.txt", "Eve Jones kept the  ledger."),),
        (),
        (),
    ]


def test_a_build_of_a_text_holding_a_nul_extracts_and_stores_it_in_every_store(db: str) -> None:
    model = FakeLlmProvider(
        by_substring={"Bob Smith": {"entities": [{"name": "Bob Smith", "type": "person"}]}}
    )

    async def scenario() -> tuple[object, ...]:
        async with AsyncRedstring(db, tenant=f"nul-{uuid4().hex}", embeddings="none") as rs:
            built = await rs.build(
                SourceDocument(id="b.txt", text=BOB), model=model, domain="general"
            )
            names = [hit.name for hit in (await rs.search("Bob Smith", mode="lexical")).matches]
            found = await rs.passages("ledger", mode="lexical")
            return built.failures, names, [hit.text for hit in found.matches]

    assert asyncio.run(scenario()) == ([], ["Bob Smith"], ["Bob Smith wrote the ledger."])


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("metadata", "name"),
    [
        ({"author": "Bob\x00"}, "documents[1].metadata['author']"),
        ({"tags": ["ledger", "x\x00"]}, "documents[1].metadata['tags'][1]"),
        ({"au\x00thor": "Bob"}, "documents[1].metadata['au\\x00thor']"),
    ],
)
async def test_a_nul_in_a_documents_metadata_is_refused_before_anything_is_written(
    stores: Stores, metadata: dict[str, object], name: str
) -> None:
    tenant = new_tenant_id()
    documents = [
        SourceDocument(id="a.txt", text="Ada Lovelace kept notes."),
        SourceDocument(id="b.txt", text="Bob Smith wrote the ledger.", metadata=metadata),
    ]
    with pytest.raises(InvalidArgumentError) as caught:
        await index_documents(documents, chunks=stores.chunks, tenant_id=tenant)
    assert caught.value.name == name
    assert "NUL" in str(caught.value)
    assert "remove" in str(caught.value)
    assert await stores.chunks.chunks_of_source("a.txt", tenant) == []
