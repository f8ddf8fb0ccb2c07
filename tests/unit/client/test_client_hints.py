"""Each reason an entity or passage search is empty, through the async client (B167)."""

from __future__ import annotations

import pytest

from redstring import AsyncRedstring, Entity
from redstring.client.store_set import StoreSet
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryChunkStore, InMemoryGraphStore, InMemoryVectorStore
from tests.unit.cli.mcp_fixture_server import opener_of
from tests.unit.cli.world import DIMENSION, HOME, home_entities, populated_stores


def _client(stores: StoreSet, *, embedded: bool = True) -> AsyncRedstring:
    embeddings = FakeEmbeddingProvider(dimension=DIMENSION) if embedded else "none"
    return AsyncRedstring(tenant=str(HOME), embeddings=embeddings, opener=opener_of(stores))


def _empty() -> StoreSet:
    return StoreSet(
        backend="memory",
        graph=InMemoryGraphStore(),
        vectors=InMemoryVectorStore(dimension=DIMENSION),
        chunks=InMemoryChunkStore(dimension=DIMENSION),
    )


@pytest.mark.asyncio
async def test_entity_hints_name_the_words_the_filter_and_the_threshold() -> None:
    stores, _ = await populated_stores()
    async with _client(stores) as rs:
        lexical = await rs.search("zzzz", mode="lexical")
        typed = await rs.search("Ada", types=["planet"])
        held_type = await rs.search("Ada", types=["organization"], mode="lexical")
        strict = await rs.search("Ada", min_confidence=1.0)
    assert lexical.hint == "no entity name or alias matched the query's words."
    assert str(lexical).splitlines() == [
        "0 entities for 'zzzz' (lexical)",
        "  no entity name or alias matched the query's words.",
    ]
    assert typed.hint is not None
    assert "holds no type 'planet', so nothing could match" in typed.hint
    assert held_type.hint is not None
    assert held_type.hint.startswith("no entity of the given types matched")
    assert strict.hint == "no entity reached min_confidence=1.0; lower it to see weaker matches."


@pytest.mark.asyncio
async def test_entities_without_vectors_or_passages_and_an_empty_database_are_explained() -> None:
    stores = _empty()
    async with _client(stores) as rs:
        nothing = await rs.search("Ada")
        await stores.graph.upsert(home_entities())  # entities, no vectors, no passages
        semantic = await rs.search("zzzz", mode="semantic")
        passages = await rs.passages("Ada", mode="lexical")
    assert nothing.hint == f"tenant {HOME} holds nothing, nor does any other: index or build first."
    assert semantic.hint is not None
    assert semantic.hint == (
        "the semantic channel had nothing to search: the tenant's entities have no vectors "
        "(built without embeddings); build with a provider, or search with mode 'lexical'."
    )  # the lexical channel never ran, so nothing is said of names
    assert passages.hint is not None
    assert passages.hint.startswith(f"tenant {HOME} holds 4 entities but no passages: index")


@pytest.mark.asyncio
async def test_a_backend_without_chunks_explains_an_empty_entity_search() -> None:
    stores = StoreSet(
        backend="memory",
        graph=InMemoryGraphStore(),
        vectors=InMemoryVectorStore(dimension=DIMENSION),
        chunks=None,
    )
    async with _client(stores, embedded=False) as rs:
        answer = await rs.search("Ada")
    assert answer.hint == f"tenant {HOME} holds nothing, nor does any other: index or build first."


@pytest.mark.asyncio
async def test_the_stats_of_a_backend_without_chunks_print_the_entity_vectors_alone() -> None:
    stores = StoreSet(
        backend="memory",
        graph=InMemoryGraphStore(),
        vectors=InMemoryVectorStore(dimension=DIMENSION),
        chunks=None,
    )
    await stores.graph.upsert(home_entities())
    async with _client(stores, embedded=False) as rs:
        stats = await rs.stats()
    [tenant] = stats.tenants
    assert (tenant.chunks, tenant.embedded_chunks) == (None, None)
    printed = str(stats).splitlines()
    assert f"  vectors        {tenant.vectors}" in printed
    assert "  chunks         not kept by this backend" in printed


@pytest.mark.asyncio
async def test_an_entity_without_a_description_prints_without_a_description_line() -> None:
    stores = _empty()
    ada = Entity(tenant_id=HOME, entity_type="person", name="Ada Lovelace")
    await stores.graph.upsert([ada])
    async with _client(stores, embedded=False) as rs:
        detail = await rs.entity(str(ada.id))
    assert str(detail).splitlines() == [f"Ada Lovelace (person) {ada.id}"]


@pytest.mark.asyncio
async def test_a_semantic_passage_search_over_unembedded_passages_says_nothing_of_words() -> None:
    stores, _ = await populated_stores()
    assert stores.chunks is not None
    for chunk in await stores.chunks.list_chunks(HOME):
        await stores.chunks.upsert_chunks(
            [chunk.model_copy(update={"embedding": None, "embedding_model": None})]
        )
    async with _client(stores) as rs:
        semantic = await rs.passages("zzzz", mode="semantic")
        hybrid = await rs.passages("zzzz", mode="hybrid")
    assert semantic.hint == (
        "the semantic channel had nothing to search: no passage has an embedding (indexed "
        "or built without an embedding provider); index them with a provider, or search "
        "with mode 'lexical'."
    )
    assert hybrid.hint is not None
    assert hybrid.hint.endswith(", and no passage shares a word with the query.")
