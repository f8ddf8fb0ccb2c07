"""The SQLite chunk store rewrites by difference (B100): what a one-paragraph edit rewrites."""

from __future__ import annotations

import contextlib
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from redstring import new_tenant_id
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.composition.index_documents import index_documents
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunk import StoredChunk, chunk_id_for
from redstring.domain.chunking import SlidingWindowChunker
from redstring.domain.document import SourceDocument
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.tokenize import Analyzer
from redstring.llm.fake_embedding import FakeEmbeddingProvider
from redstring.storage.sqlite import SqliteDatabase
from tests.unit.stores.legacy_chunk_files import expected_postings, stored_postings

WORDS = [
    *("amber", "basalt", "cobalt", "dune", "ember", "fjord"),
    *("garnet", "harbor", "indigo", "jasper", "kelp", "lagoon"),
]


def document(edited: bool = False) -> str:
    """Forty paragraphs; the edit lengthens one word of paragraph 20, shifting all after it."""
    paragraphs = [
        " ".join(f"{WORDS[(p + w) % len(WORDS)]}{p}" for w in range(30)) + "." for p in range(40)
    ]
    if edited:
        paragraphs[20] = paragraphs[20].replace("amber", "amberlike", 1).replace("basalt", "x", 1)
    return "\n\n".join(paragraphs)


@dataclass(frozen=True)
class Snapshot:
    numbers: dict[str, int]  # chunk id -> number
    blocks: dict[tuple[int, int], bytes]  # (term number, block) -> postings
    vectors: dict[int, bytes]
    words: dict[int, str]  # term number -> term


def snapshot(path: Path) -> Snapshot:
    with contextlib.closing(sqlite3.connect(path)) as raw:
        return Snapshot(
            numbers=dict(raw.execute("SELECT chunk_id, number FROM chunk_texts")),
            blocks={
                (term, block): blob
                for term, block, blob in raw.execute(
                    "SELECT term, block, postings FROM chunk_posting_blocks"
                )
            },
            vectors=dict(raw.execute("SELECT key, embedding FROM chunk_vectors")),
            words={n: w for w, n in raw.execute("SELECT term, number FROM chunk_words")},
        )


def places(text: str) -> dict[str, tuple[int, int, int]]:
    """Chunk id -> (index, start, end) of each chunk of `text`."""
    spans = SlidingWindowChunker().split(text)
    return {str(chunk_id_for("doc", s.text)): (n, s.start, s.end) for n, s in enumerate(spans)}


def ids_of(text: str) -> dict[str, str]:
    return {
        str(chunk_id_for("doc", span.text)): span.text
        for span in SlidingWindowChunker().split(text)
    }


@pytest.mark.asyncio
async def test_a_one_paragraph_edit_rewrites_only_the_chunks_and_postings_it_changed(
    tmp_path: Path,
) -> None:
    path, tenant = tmp_path / "index.db", TenantId(uuid.UUID(int=3))
    stores = open_sqlite(path, dimension=8)
    provider = FakeEmbeddingProvider(dimension=8)
    try:
        await index_documents(
            [SourceDocument(id="doc", text=document())],
            chunks=stores.chunks,
            tenant_id=tenant,
            embeddings=provider,
        )
        before = snapshot(path)
        executed: list[str] = []
        stores.database.connection.set_trace_callback(executed.append)
        await index_documents(
            [SourceDocument(id="doc", text=document(edited=True))],
            chunks=stores.chunks,
            tenant_id=tenant,
            embeddings=provider,
        )
        stores.database.connection.set_trace_callback(None)
        after = snapshot(path)
        live = await stores.chunks.list_chunks(tenant)
    finally:
        await stores.close()
    old, new = ids_of(document()), ids_of(document(edited=True))
    added, removed, kept = new.keys() - old.keys(), old.keys() - new.keys(), old.keys() & new.keys()
    assert len(old) >= 10
    assert 1 <= len(added) <= 3
    assert len(kept) >= len(old) - 3
    # Kept chunks keep their numbers; only the added ones take new numbers and vectors.
    assert {i: after.numbers[i] for i in kept} == {i: before.numbers[i] for i in kept}
    assert len(set(after.numbers.values()) - set(before.numbers.values())) == len(added)
    assert len(after.vectors.keys() - before.vectors.keys()) == len(added)
    # A block changed only if it holds a term of an added or removed chunk.
    touched = {t for i in added | removed for t in Analyzer().terms({**old, **new}[i])}
    changed = {
        key
        for key in before.blocks.keys() | after.blocks.keys()
        if before.blocks.get(key) != after.blocks.get(key)
    }
    assert changed
    assert {after.words[term] for term, _ in changed} <= touched
    assert len(changed) < len(after.blocks) / 2
    # No stored vector is read, only the added ones are written (ADR 0255), and only
    # the chunks the edit moved have their body rewritten.
    assert [s for s in executed if s.startswith("SELECT") and "embedding" in s] == []
    assert len([s for s in executed if s.startswith("INSERT INTO chunk_vectors")]) == len(added)
    assert len([s for s in executed if s.startswith("DELETE FROM chunk_vectors")]) == len(removed)
    moved = {i for i in kept if places(document())[i] != places(document(edited=True))[i]}
    assert moved
    assert len(moved) < len(kept)
    assert len([s for s in executed if s.startswith("UPDATE chunk_texts")]) == len(moved)
    # ... and what is stored is the edited document, placed where it now is.
    assert stored_postings(path) == expected_postings(live)
    text = document(edited=True)
    assert sorted(str(c.id) for c in live) == sorted(new)
    assert all(text[c.start : c.end] == c.text for c in live)
    assert [c.index for c in sorted(live, key=lambda c: c.start)] == list(range(len(live)))


def passage(tenant: TenantId, **fields: object) -> StoredChunk:
    return StoredChunk.model_validate(
        {"tenant_id": tenant, "source_id": "s", "text": "engine notes", "index": 0, "start": 0,
         "end": 12, **fields}
    )  # fmt: skip


@pytest.mark.asyncio
async def test_a_chunk_written_again_in_place_takes_its_new_vector_and_entities(
    tmp_path: Path,
) -> None:
    database = SqliteDatabase(tmp_path / "chunks.db")
    store = SqliteChunkStore(database, dimension=2)
    tenant, ada, bob = new_tenant_id(), EntityId(uuid.uuid4()), EntityId(uuid.uuid4())
    try:
        await store.upsert_chunks([passage(tenant, embedding=[1.0, 0.0], entity_ids=[ada])])
        await store.upsert_chunks([passage(tenant, entity_ids=[bob])])  # no vector now
        assert await store.search_chunks([1.0, 0.0], tenant) == []
        assert [c.entity_ids for c in await store.chunks_of_entity(bob, tenant)] == [[bob]]
        assert await store.chunks_of_entity(ada, tenant) == []
        await store.replace_source("s", tenant, [passage(tenant, embedding=[0.0, 1.0])])
        (match,) = await store.search_chunks([0.0, 1.0], tenant)
        assert match.chunk.embedding == [0.0, 1.0]
        assert match.chunk.entity_ids == []
        assert await store.chunks_of_entity(bob, tenant) == []
        found = await store.lexical_candidates(store.analyzer.terms("engine"), tenant)
        assert found.stats.document_count == 1
        assert found.stats.document_frequencies == {"engin": 1}
    finally:
        database.close()
