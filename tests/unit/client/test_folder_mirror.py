"""Indexing a folder again mirrors it; `remove` takes one document out; both per tenant.

Every backend (in memory, SQLite, PostgreSQL) is driven through the client,
with the same folder indexed into two tenants so every document id collides
across them: a removal in one tenant must leave the other whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from redstring import AsyncRedstring, RetrievalMode, SourceDocument
from redstring.client.store_set import StoreOpener
from redstring.errors import InvalidArgumentError, NoDocumentsError
from redstring.providers import FakeEmbeddingProvider
from tests.unit.client.memory_stores import memory_opener

DIMENSION = 16
MINE, THEIRS = "mine", "theirs"

TEXTS = {
    "a.md": "# Ada\n\nAda Lovelace wrote the first program for the analytical engine.\n",
    "sub/b.txt": "Grace Hopper wrote the first compiler and found a moth in a relay.\n",
    "sub/c.md": "Alan Turing described a universal machine and a test of intelligence.\n",
}


def _folder(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    for name, text in TEXTS.items():
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_text(text)
    return corpus


def _memory_opener() -> StoreOpener:
    return memory_opener(DIMENSION)


Client = Callable[[str], AsyncRedstring]


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def client_of(request: pytest.FixtureRequest, tmp_path: Path) -> Client:
    """A client of a tenant, every tenant in one database of the backend asked for."""
    embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
    if request.param == "memory":
        opener = _memory_opener()
        return lambda tenant: AsyncRedstring(
            "memory", tenant=tenant, embeddings=embeddings, opener=opener
        )
    if request.param == "sqlite":
        db = str(tmp_path / "x.db")
        return lambda tenant: AsyncRedstring(db, tenant=tenant, embeddings=embeddings)
    url: str = request.getfixturevalue("postgres_url")
    suffix = tmp_path.name  # a tenant pair of its own within the module's database
    return lambda tenant: AsyncRedstring(url, tenant=f"{tenant}-{suffix}", embeddings=embeddings)


async def _found(rs: AsyncRedstring, query: str) -> dict[RetrievalMode, list[str]]:
    """The source ids each mode finds for `query` (every passage asked for)."""
    found: dict[RetrievalMode, list[str]] = {}
    for mode in RetrievalMode:
        answer = await rs.passages(query, k=10, mode=mode)
        found[mode] = sorted({hit.source_id for hit in answer})
    return found


async def _sources(rs: AsyncRedstring) -> dict[str, int]:
    return (await rs.describe()).sources


def test_indexing_a_folder_again_removes_what_left_it_in_that_tenant_only(
    client_of: Client, tmp_path: Path
) -> None:
    corpus = _folder(tmp_path)

    async def scenario() -> None:
        async with client_of(MINE) as mine, client_of(THEIRS) as theirs:
            await mine.index(corpus)
            await theirs.index(corpus)
            (corpus / "sub" / "b.txt").unlink()
            report = await mine.index(corpus)
            assert report.removed == ["corpus/sub/b.txt"]
            assert (report.documents, report.unchanged) == (2, 2)
            assert await _sources(mine) == {"corpus/a.md": 1, "corpus/sub/c.md": 1}
            gone = await _found(mine, "Grace Hopper compiler moth relay")
            assert all("corpus/sub/b.txt" not in ids for ids in gone.values()), gone
            chunks = (await mine._open("test")).chunks  # the chunk store itself
            assert chunks is not None
            assert await chunks.source_manifest("corpus/sub/b.txt", mine.tenant_id) == []
            # The other tenant, holding the very same ids, keeps the document everywhere.
            assert len(await _sources(theirs)) == 3
            kept = await _found(theirs, "Grace Hopper compiler moth relay")
            assert all("corpus/sub/b.txt" in ids for ids in kept.values()), kept
            again = await mine.index(corpus)
            assert again.removed == []

    asyncio.run(scenario())


def test_keep_missing_keeps_documents_that_left_the_folder(
    client_of: Client, tmp_path: Path
) -> None:
    corpus = _folder(tmp_path)

    async def scenario() -> None:
        async with client_of(MINE) as mine:
            await mine.index(corpus)
            (corpus / "a.md").unlink()
            report = await mine.index(corpus, keep_missing=True)
            assert report.removed == []
            assert "corpus/a.md" in await _sources(mine)

    asyncio.run(scenario())


def test_only_documents_under_the_folder_indexed_are_mirrored(
    client_of: Client, tmp_path: Path
) -> None:
    corpus = _folder(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "d.md").write_text("Charles Babbage designed the difference engine.\n")

    async def scenario() -> None:
        async with client_of(MINE) as mine:
            await mine.index([corpus, elsewhere / "d.md"], root=tmp_path)
            (corpus / "sub" / "c.md").unlink()
            (corpus / "a.md").unlink()
            # Only the subfolder is named: a.md (gone, but outside it) stays, c.md goes.
            report = await mine.index(corpus / "sub", root=tmp_path)
            assert report.removed == ["corpus/sub/c.md"]
            left = ["corpus/a.md", "corpus/sub/b.txt", "elsewhere/d.md"]
            assert sorted(await _sources(mine)) == left

    asyncio.run(scenario())


def test_remove_takes_one_document_out_of_one_tenant(client_of: Client, tmp_path: Path) -> None:
    corpus = _folder(tmp_path)

    async def scenario() -> None:
        async with client_of(MINE) as mine, client_of(THEIRS) as theirs:
            await mine.index(corpus)
            await theirs.index(corpus)
            assert await mine.remove("corpus/a.md") == 1
            assert sorted(await _sources(mine)) == ["corpus/sub/b.txt", "corpus/sub/c.md"]
            gone = await _found(mine, "Ada Lovelace analytical engine")
            assert all("corpus/a.md" not in ids for ids in gone.values()), gone
            assert len(await _sources(theirs)) == 3
            with pytest.raises(InvalidArgumentError, match="document_id"):
                await mine.remove("corpus/a.md")  # already gone

    asyncio.run(scenario())


def test_the_sync_client_removes_too(tmp_path: Path) -> None:
    from redstring import Redstring  # noqa: PLC0415 (beside the async scenario it mirrors)

    corpus = _folder(tmp_path)
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(corpus)
        assert rs.remove("corpus/sub/c.md") == 1
        assert sorted(rs.describe().sources) == ["corpus/a.md", "corpus/sub/b.txt"]
        (corpus / "a.md").unlink()
        assert rs.index(corpus, keep_missing=False).removed == ["corpus/a.md"]


def test_a_folder_that_is_its_own_root_never_removes_another_folders_documents(
    client_of: Client, tmp_path: Path
) -> None:
    """The reproduction: `index rA`, then `index rB --root rB` took `rA/a.md` out."""
    (tmp_path / "rA").mkdir()
    (tmp_path / "rA" / "a.md").write_text("apple aardvark\n")
    (tmp_path / "rB").mkdir()
    (tmp_path / "rB" / "b.md").write_text("banana bison\n")
    by_hand = SourceDocument(id="hand.md", text="cherry chinchilla", metadata={})

    async def scenario() -> None:
        async with client_of(MINE) as mine:
            await mine.index([tmp_path / "rA", by_hand])
            report = await mine.index(tmp_path / "rB", root=tmp_path / "rB")
            assert report.removed == []
            assert sorted(await _sources(mine)) == ["b.md", "hand.md", "rA/a.md"]
            found = await mine.passages("aardvark", k=5, mode=RetrievalMode.LEXICAL)
            assert [hit.source_id for hit in found] == ["rA/a.md"]

    asyncio.run(scenario())


def test_a_folder_that_is_its_own_root_mirrors_the_ids_its_walk_could_give(
    client_of: Client, tmp_path: Path
) -> None:
    """Its ids name no folder of its own: a file directly in it, or under a subfolder it
    still has, is its; an id whose first folder it no longer has could be anyone's."""
    root = tmp_path / "notes"
    for name in ("top.md", "keep.md", "sub/s.md", "sub/t.md", "gone/g.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"the text of {name}\n")

    async def scenario() -> None:
        async with client_of(MINE) as mine:
            await mine.index(root, root=root)
            for name in ("top.md", "sub/s.md", "gone/g.md"):
                (root / name).unlink()
            (root / "gone").rmdir()
            report = await mine.index(root, root=root)
            assert report.removed == ["sub/s.md", "top.md"]
            assert sorted(await _sources(mine)) == ["gone/g.md", "keep.md", "sub/t.md"]

    asyncio.run(scenario())


def test_a_folder_whose_last_file_left_is_mirrored_and_an_empty_one_is_refused(
    client_of: Client, tmp_path: Path
) -> None:
    emptied, never = tmp_path / "emptied", tmp_path / "never"
    emptied.mkdir()
    never.mkdir()
    (emptied / "a.md").write_text("narwhal tusk\n")

    async def scenario() -> None:
        async with client_of(MINE) as mine:
            await mine.index(emptied)
            (emptied / "a.md").unlink()
            with pytest.raises(NoDocumentsError, match="emptied"):
                await mine.index(emptied, keep_missing=True)  # keeps it: nothing to do
            report = await mine.index(emptied)
            assert (report.documents, report.removed) == (0, ["emptied/a.md"])
            assert await _sources(mine) == {}
            found = await mine.passages("narwhal", k=5, mode=RetrievalMode.LEXICAL)
            assert list(found) == []
            # Nothing found and nothing held: there was nothing to do.
            for folder in (emptied, never):
                with pytest.raises(NoDocumentsError, match=folder.name):
                    await mine.index(folder)

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "ids", [["corpus/a.md"], ("corpus/a.md",), {"corpus/a.md"}, {"corpus/a.md": 1}, b"corpus/a.md"]
)
def test_remove_refuses_anything_but_one_id_naming_it(tmp_path: Path, ids: object) -> None:
    from redstring import Redstring  # noqa: PLC0415 (beside the async scenario it mirrors)

    corpus = _folder(tmp_path)
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(corpus)
        with pytest.raises(InvalidArgumentError, match="document_id") as refused:
            rs.remove(ids)  # type: ignore[arg-type]
        assert "call remove once per id" in str(refused.value)
        assert len(rs.describe().sources) == 3
