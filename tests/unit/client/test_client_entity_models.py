"""A client whose embedding model is none of the models that embedded its tenant's entities.

The dimensions agree, so nothing else stops an entity search that embeds its
query: it would rank the old model's vectors by the new model's query. Such
a search is refused naming `embeddings`, the model that embedded the
entities and the ways out; a lexical one answers; building again under the
new model lets it run. Entities are built from the sample documents through
the loopback model server, in memory, SQLite and PostgreSQL alike; two
tenants holding the same entity ids under different models are each checked
against their own vectors. A database written before vectors named their
model is searched as before.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Collection
from pathlib import Path
from uuid import UUID

import pytest

from redstring import AsyncRedstring, Entity, EntityId, Redstring, TenantId
from redstring.client.store_set import StoreSet
from redstring.domain.events import DocumentExtracted
from redstring.errors import EmbeddingModelMismatchError, InvalidArgumentError
from redstring.events.in_memory import InMemoryEventLog
from redstring.graph.in_memory import InMemoryGraphStore
from redstring.ports import VectorModels, VectorSearcher, VectorWriter
from redstring.projections.graph import GraphProjection
from redstring.projections.vectors import VectorProjection, embedded_event
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import open_sqlite
from redstring.vector.in_memory import InMemoryVectorStore
from tests.unit.adapters.openai_protocol_server import serve
from tests.unit.cli.mcp_fixture_server import opener_of
from tests.unit.cli.sample_model import script

DOCS = Path(__file__).resolve().parents[3] / "src" / "redstring" / "sample_docs"
ADA = DOCS / "ada_lovelace.md"
DIMENSION = 16
WROTE = "fake-hashed-words"  # FakeEmbeddingProvider's model


class OtherModel(FakeEmbeddingProvider):
    """A model of the same dimension under another name: what a user switching models has."""

    @property
    def model(self) -> str:
        return "another-model"


class CountingVectors(InMemoryVectorStore):
    """An in-memory vector store counting how often its vectors' models are read: all of
    them (`reads`) or until one of those asked for (`asks`)."""

    reads = 0
    asks = 0

    async def embedding_models(self, tenant_id: TenantId) -> dict[str | None, int]:
        self.reads += 1
        return await super().embedding_models(tenant_id)

    async def embeds_with(self, tenant_id: TenantId, models: Collection[str | None]) -> bool:
        self.asks += 1
        return await super().embeds_with(tenant_id, models)


def _assert_refused(refused: EmbeddingModelMismatchError, entities: int) -> None:
    message = str(refused)
    assert isinstance(refused, InvalidArgumentError)
    assert refused.name == "embeddings"
    assert refused.items == "entities"
    assert (refused.stored, refused.model) == ({WROTE: entities}, "another-model")
    assert f"the entities of this tenant were embedded by {WROTE} ({entities} entities)" in message
    assert "the embedding model is another-model" in message
    assert "Build the graph again from its documents with this model" in message
    assert 'mode="lexical"' in message


def _refuses_then_answers_once_built_again(rs: Redstring, base_url: str) -> None:
    entities = rs.describe().entities
    assert rs.describe().entity_models == {WROTE: entities}
    for mode in (None, "hybrid", "semantic"):
        with pytest.raises(EmbeddingModelMismatchError) as refused:
            rs.search("Ada Lovelace", mode=mode)
        _assert_refused(refused.value, entities)
    assert rs.search("Ada Lovelace", mode="lexical").matches[0].name == "Ada Lovelace"
    rs.build([ADA], model="m", base_url=base_url)  # embeds every entity again, this model
    assert rs.describe().entity_models == {"another-model": entities}
    assert rs.search("Ada Lovelace").matches[0].name == "Ada Lovelace"


def test_a_sqlite_entity_search_under_another_model_of_the_same_dimension_is_refused(
    tmp_path: Path,
) -> None:
    db = tmp_path / "g.db"
    with serve(script, lifetime=300) as server:
        with Redstring(db, embeddings=FakeEmbeddingProvider(dimension=DIMENSION)) as rs:
            rs.build([ADA], model="m", base_url=server.base_url)
            assert rs.search("Ada Lovelace").matches
        with Redstring(db, embeddings=OtherModel(dimension=DIMENSION)) as rs:
            _refuses_then_answers_once_built_again(rs, server.base_url)


def test_a_postgres_entity_search_under_another_model_of_the_same_dimension_is_refused(
    postgres_url: str,
) -> None:
    with serve(script, lifetime=300) as server:
        with Redstring(postgres_url, embeddings=FakeEmbeddingProvider(dimension=DIMENSION)) as rs:
            rs.build([ADA], model="m", base_url=server.base_url)
        with Redstring(postgres_url, embeddings=OtherModel(dimension=DIMENSION)) as rs:
            _refuses_then_answers_once_built_again(rs, server.base_url)


def _memory() -> StoreSet:
    return StoreSet(
        backend="memory",
        graph=InMemoryGraphStore(),
        vectors=CountingVectors(dimension=DIMENSION),
        chunks=None,
        events=InMemoryEventLog(),
    )


@pytest.mark.asyncio
async def test_in_memory_a_search_asks_for_its_model_and_keeps_a_yes_until_a_write() -> None:
    stores = _memory()
    vectors = stores.vectors
    assert isinstance(vectors, CountingVectors)
    with serve(script, lifetime=300) as server:
        async with AsyncRedstring(
            "in-memory", embeddings=FakeEmbeddingProvider(dimension=DIMENSION),
            opener=opener_of(stores),
        ) as rs:  # fmt: skip
            await rs.build([ADA], model="m", base_url=server.base_url)
        assert (vectors.asks, vectors.reads) == (0, 0)  # a build reads no model
        async with AsyncRedstring(
            "in-memory", embeddings=OtherModel(dimension=DIMENSION), opener=opener_of(stores)
        ) as rs:
            entities = (await rs.describe()).entities
            assert (vectors.asks, vectors.reads) == (0, 1)  # describe counts them, and keeps it
            for _ in range(3):
                with pytest.raises(EmbeddingModelMismatchError) as refused:
                    await rs.search("Ada Lovelace")
                _assert_refused(refused.value, entities)
            await rs.search("Ada Lovelace", mode="lexical")  # reads no model
            # Each refusal asks again; the counts for its message were kept from describe.
            assert (vectors.asks, vectors.reads) == (3, 1)
            await rs.build([ADA], model="m", base_url=server.base_url)
            [first, *_] = (await rs.search("Ada Lovelace")).matches
            await rs.search("Ada Lovelace", mode="semantic")
            # A yes is asked once after the build and kept, reading no more.
            assert (vectors.asks, vectors.reads) == (4, 1)
    assert first.name == "Ada Lovelace"


@pytest.mark.asyncio
async def test_a_refused_client_searches_once_another_writer_built_with_its_model() -> None:
    stores = _memory()
    with serve(script, lifetime=300) as server:
        async with AsyncRedstring(
            "in-memory", embeddings=FakeEmbeddingProvider(dimension=DIMENSION),
            opener=opener_of(stores),
        ) as rs:  # fmt: skip
            await rs.build([ADA], model="m", base_url=server.base_url)
        async with AsyncRedstring(
            "in-memory", embeddings=OtherModel(dimension=DIMENSION), opener=opener_of(stores)
        ) as refused:
            with pytest.raises(EmbeddingModelMismatchError):
                await refused.search("Ada Lovelace")
            async with AsyncRedstring(  # another writer, not through the refused client
                "in-memory", embeddings=OtherModel(dimension=DIMENSION), opener=opener_of(stores)
            ) as writer:
                await writer.build([ADA], model="m", base_url=server.base_url)
            [first, *_] = (await refused.search("Ada Lovelace")).matches
    assert first.name == "Ada Lovelace"


SHARED = [EntityId(UUID(int=n)) for n in (1, 2)]
NAMES = ["Ada Lovelace", "Charles Babbage"]


async def _write_entities(
    graph: GraphProjection, vectors: VectorWriter, tenant: TenantId, model: FakeEmbeddingProvider
) -> None:
    """The same two entity ids and names in `tenant`, embedded by `model`, folded as a build
    folds them."""
    entities = [
        Entity(id=entity_id, tenant_id=tenant, entity_type="person", name=name)
        for entity_id, name in zip(SHARED, NAMES, strict=True)
    ]
    await graph.apply(
        DocumentExtracted(tenant_id=tenant, document_id="d", entities=entities, relationships=[])
    )
    await VectorProjection(vectors).apply(await embedded_event(model, entities, tenant))


def test_two_tenants_with_the_same_entity_ids_are_each_checked_against_their_own(
    tmp_path: Path,
) -> None:
    db = tmp_path / "g.db"
    old, new = TenantId(UUID(int=101)), TenantId(UUID(int=102))

    async def write() -> None:
        async with open_sqlite(db, dimension=DIMENSION) as stores:
            graph = GraphProjection(stores.graph)
            await _write_entities(
                graph, stores.vectors, old, FakeEmbeddingProvider(dimension=DIMENSION)
            )
            await _write_entities(graph, stores.vectors, new, OtherModel(dimension=DIMENSION))

    asyncio.run(write())
    with Redstring(db, tenant=old, embeddings=OtherModel(dimension=DIMENSION)) as rs:
        with pytest.raises(EmbeddingModelMismatchError) as refused:
            rs.search("Ada Lovelace")
        assert (refused.value.stored, refused.value.model) == ({WROTE: 2}, "another-model")
        assert rs.search("Ada Lovelace", mode="lexical").matches[0].name == "Ada Lovelace"
    with Redstring(db, tenant=new, embeddings=OtherModel(dimension=DIMENSION)) as rs:
        assert rs.search("Ada Lovelace").matches[0].name == "Ada Lovelace"
        assert rs.describe().entity_models == {"another-model": 2}
    written = FakeEmbeddingProvider(dimension=DIMENSION)
    with Redstring(db, tenant=new, embeddings=written) as rs:
        with pytest.raises(EmbeddingModelMismatchError) as refused:
            rs.search("Ada Lovelace", mode="semantic")
        assert refused.value.stored == {"another-model": 2}
    with Redstring(db, tenant=old, embeddings=written) as rs:
        assert rs.search("Ada Lovelace", mode="semantic").matches


class CannotName(InMemoryVectorStore):
    """A vector store written before `VectorModels`: it cannot tell its vectors' models."""

    embedding_models = None  # type: ignore[assignment]


@pytest.mark.asyncio
async def test_a_vector_store_that_cannot_name_models_still_searches_and_is_not_refused() -> None:
    vectors = CannotName(dimension=DIMENSION)
    assert isinstance(vectors, VectorSearcher)
    assert not isinstance(vectors, VectorModels)
    graph = InMemoryGraphStore()
    tenant = TenantId(UUID(int=7))
    await _write_entities(
        GraphProjection(graph), vectors, tenant, FakeEmbeddingProvider(dimension=DIMENSION)
    )
    stores = StoreSet(backend="memory", graph=graph, vectors=vectors, chunks=None, events=None)
    async with AsyncRedstring(
        "in-memory", tenant=tenant, embeddings=OtherModel(dimension=DIMENSION),
        opener=opener_of(stores),
    ) as rs:  # fmt: skip
        assert (await rs.search("Ada Lovelace")).matches  # nothing says the model differs
        assert (await rs.describe()).entity_models == {}


def test_vectors_naming_no_model_are_searched_until_a_rebuild_records_it(tmp_path: Path) -> None:
    """A file migrated from before vectors named their model: nothing says the model differs,
    so its searches run; `rebuild` replays the log, whose events name the model, and the
    client forgets the yes it kept."""
    db = tmp_path / "g.db"
    with (
        serve(script, lifetime=300) as server,
        Redstring(db, embeddings=FakeEmbeddingProvider(dimension=DIMENSION)) as rs,
    ):
        rs.build([ADA], model="m", base_url=server.base_url)
    with sqlite3.connect(db) as raw:  # as the migration leaves an older file's rows
        raw.execute("UPDATE vector_records SET model = NULL")
    with Redstring(db, embeddings=OtherModel(dimension=DIMENSION)) as rs:
        entities = rs.describe().entities
        assert rs.describe().entity_models == {"": entities}
        assert rs.search("Ada Lovelace").matches  # kept: a yes, until the client writes
        report = rs.rebuild()
        assert report.vectors == entities
        assert rs.describe().entity_models == {WROTE: entities}
        with pytest.raises(EmbeddingModelMismatchError) as refused:
            rs.search("Ada Lovelace")
        _assert_refused(refused.value, entities)
