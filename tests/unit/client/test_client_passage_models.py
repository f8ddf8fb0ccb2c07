"""A client whose embedding model is none of the models that embedded its tenant's passages.

The dimensions agree, so nothing else stops a search that embeds its query:
it would rank the old model's vectors by the new model's query. Such a search
is refused naming `embeddings` and the ways out; a lexical one answers; a
write through the client (indexing again under the new model) lets it run.
In memory, SQLite and PostgreSQL alike, and never across tenants.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import pytest

from redstring import AsyncRedstring, Redstring
from redstring.chunks.in_memory import InMemoryChunkStore
from redstring.client.store_set import StoreSet
from redstring.domain.ids import TenantId
from redstring.errors import EmbeddingModelMismatchError, InvalidArgumentError
from redstring.events.in_memory import InMemoryEventLog
from redstring.graph.in_memory import InMemoryGraphStore
from redstring.ports import ChunkModels, ChunkReader
from redstring.providers import FakeEmbeddingProvider
from redstring.vector.in_memory import InMemoryVectorStore
from tests.unit.cli.mcp_fixture_server import opener_of
from tests.unit.written_elsewhere import NOTE

DIMENSION = 64
WROTE = "fake-hashed-words"  # FakeEmbeddingProvider's model


class OtherModel(FakeEmbeddingProvider):
    """A model of the same dimension under another name: what a user switching models has."""

    @property
    def model(self) -> str:
        return "another-model"


class CountingChunks(InMemoryChunkStore):
    """An in-memory chunk store counting how often the models of its vectors are read:
    all of them (`reads`) or until one of those asked for (`asks`)."""

    reads = 0
    asks = 0

    async def embedding_models(self, tenant_id: TenantId) -> dict[str | None, int]:
        self.reads += 1
        return await super().embedding_models(tenant_id)

    async def embeds_with(self, tenant_id: TenantId, models: Collection[str | None]) -> bool:
        self.asks += 1
        return await super().embeds_with(tenant_id, models)


async def _index_with_the_first_model(stores: StoreSet) -> None:
    """`NOTE` indexed into `stores` by `FakeEmbeddingProvider`, whose model is `WROTE`."""
    async with AsyncRedstring(
        "in-memory", embeddings=FakeEmbeddingProvider(dimension=DIMENSION),
        opener=opener_of(stores),
    ) as rs:  # fmt: skip
        await rs.index([NOTE])


def _memory() -> StoreSet:
    return StoreSet(
        backend="memory",
        graph=InMemoryGraphStore(),
        vectors=InMemoryVectorStore(dimension=DIMENSION),
        chunks=CountingChunks(dimension=DIMENSION),
        events=InMemoryEventLog(),
    )


def _assert_refused(refused: EmbeddingModelMismatchError) -> None:
    message = str(refused)
    assert isinstance(refused, InvalidArgumentError)
    assert refused.name == "embeddings"
    assert (refused.stored, refused.model) == ({WROTE: 1}, "another-model")
    assert f"embedded by {WROTE} (1 passage)" in message
    assert "the embedding model is another-model" in message
    assert "Index the documents again with this model" in message
    assert 'mode="lexical"' in message


def _refuses_then_answers_once_indexed_again(rs: Redstring) -> None:
    for mode in (None, "hybrid", "semantic"):
        with pytest.raises(EmbeddingModelMismatchError) as refused:
            rs.passages("Lovelace", mode=mode)
        _assert_refused(refused.value)
    [lexical] = rs.passages("Lovelace", mode="lexical").matches
    assert lexical.source_id == "ada.md"
    assert rs.describe().passage_models == {WROTE: 1}
    report = rs.index([NOTE])  # embeds the passage again, under this model
    assert report.embedded == 1
    [hit] = rs.passages("Lovelace").matches
    assert hit.source_id == "ada.md"
    assert rs.describe().passage_models == {"another-model": 1}


def test_a_sqlite_passage_search_under_another_model_of_the_same_dimension_is_refused(
    tmp_path: Path,
) -> None:
    db = tmp_path / "x.db"
    with Redstring(db, embeddings=FakeEmbeddingProvider(dimension=DIMENSION)) as rs:
        rs.index([NOTE])
    with Redstring(db, embeddings=OtherModel(dimension=DIMENSION)) as rs:
        _refuses_then_answers_once_indexed_again(rs)


def test_a_postgres_passage_search_under_another_model_of_the_same_dimension_is_refused(
    postgres_url: str,
) -> None:
    with Redstring(postgres_url, embeddings=FakeEmbeddingProvider(dimension=DIMENSION)) as rs:
        rs.index([NOTE])
    with Redstring(postgres_url, embeddings=OtherModel(dimension=DIMENSION)) as rs:
        _refuses_then_answers_once_indexed_again(rs)


@pytest.mark.asyncio
async def test_in_memory_a_search_asks_for_its_model_and_keeps_a_yes_until_a_write() -> None:
    stores = _memory()
    assert isinstance(stores.chunks, CountingChunks)
    await _index_with_the_first_model(stores)  # an index that embedded counts the models once
    assert (stores.chunks.asks, stores.chunks.reads) == (0, 1)
    async with AsyncRedstring(
        "in-memory", embeddings=OtherModel(dimension=DIMENSION), opener=opener_of(stores)
    ) as rs:
        for _ in range(3):
            with pytest.raises(EmbeddingModelMismatchError) as refused:
                await rs.passages("Lovelace")
            _assert_refused(refused.value)
        await rs.passages("Lovelace", mode="lexical")  # reads no model
        # Each refusal asks again; the counts for its message are read once.
        assert (stores.chunks.asks, stores.chunks.reads) == (3, 2)
        await rs.index([NOTE])
        [hit] = (await rs.passages("Lovelace")).matches
        await rs.passages("Lovelace")
        # The index that embedded counted once; a yes is asked once and kept, reading no more.
        assert (stores.chunks.asks, stores.chunks.reads) == (4, 3)
    assert hit.source_id == "ada.md"


@pytest.mark.asyncio
async def test_a_refused_client_searches_once_another_writer_embedded_with_its_model() -> None:
    stores = _memory()
    await _index_with_the_first_model(stores)
    async with AsyncRedstring(
        "in-memory", embeddings=OtherModel(dimension=DIMENSION), opener=opener_of(stores)
    ) as refused:
        with pytest.raises(EmbeddingModelMismatchError):
            await refused.passages("Lovelace")
        async with AsyncRedstring(  # another writer, not through the refused client
            "in-memory", embeddings=OtherModel(dimension=DIMENSION), opener=opener_of(stores)
        ) as writer:
            await writer.index([NOTE])
        [hit] = (await refused.passages("Lovelace")).matches
    assert hit.source_id == "ada.md"


def test_each_tenant_is_checked_against_its_own_passages_under_the_same_ids(
    tmp_path: Path,
) -> None:
    """The same document (so the same passage ids) in two tenants, each by another model."""
    db = tmp_path / "x.db"
    with Redstring(db, tenant="old", embeddings=FakeEmbeddingProvider(dimension=DIMENSION)) as rs:
        rs.index([NOTE])
    with Redstring(db, tenant="new", embeddings=OtherModel(dimension=DIMENSION)) as rs:
        rs.index([NOTE])
        assert rs.passages("Lovelace").matches
    with Redstring(db, tenant="old", embeddings=OtherModel(dimension=DIMENSION)) as rs:
        with pytest.raises(EmbeddingModelMismatchError) as refused:
            rs.passages("Lovelace")
        _assert_refused(refused.value)
    written = FakeEmbeddingProvider(dimension=DIMENSION)
    with (
        Redstring(db, tenant="new", embeddings=written) as rs,
        pytest.raises(EmbeddingModelMismatchError) as refused,
    ):
        rs.passages("Lovelace")
    assert refused.value.stored == {"another-model": 1}


def test_a_tenant_holding_the_models_vectors_among_others_is_searched(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    later = NOTE.model_copy(update={"id": "babbage.md", "text": "Babbage designed the engine."})
    with Redstring(db, embeddings=FakeEmbeddingProvider(dimension=DIMENSION)) as rs:
        rs.index([NOTE])
    with Redstring(db, embeddings=OtherModel(dimension=DIMENSION)) as rs:
        rs.index([later])  # only the new document is embedded by this model
        assert rs.describe().passage_models == {WROTE: 1, "another-model": 1}
        assert rs.passages("Babbage engine").matches


class CannotCount(InMemoryChunkStore):
    """A chunk store written before `ChunkModels`: it cannot count its vectors' models."""

    embedding_models = None  # type: ignore[assignment]


@pytest.mark.asyncio
async def test_a_chunk_store_that_cannot_count_models_still_reads_and_is_not_refused() -> None:
    chunks = CannotCount(dimension=DIMENSION)
    assert isinstance(chunks, ChunkReader)
    assert not isinstance(chunks, ChunkModels)
    stores = StoreSet(
        backend="memory", graph=InMemoryGraphStore(),
        vectors=InMemoryVectorStore(dimension=DIMENSION), chunks=chunks, events=None,
    )  # fmt: skip
    await _index_with_the_first_model(stores)
    async with AsyncRedstring(
        "in-memory", embeddings=OtherModel(dimension=DIMENSION), opener=opener_of(stores)
    ) as rs:
        assert (await rs.passages("Lovelace")).matches  # nothing says the model differs
        assert (await rs.describe()).passage_models == {}
