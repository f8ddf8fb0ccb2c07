"""Entity HYBRID's first n results are the same for every k >= n (ADR 0395).

The shape of the passage property (`test_exact_rrf_retrieval`): random
entities over a small vocabulary, so names share words, trigrams and exact
matches, some without a vector so the semantic channel is short of the
graph; every k from 1 to past the tenant is asked, in memory and in SQLite,
and each answer must be the first k of the answer to the largest k: ids,
order, fused and lexical scores. An entity's semantic score (and the
confidence read from it) is shown only when the semantic channel was read
deep enough to rank it, so it may appear as k grows; it never changes.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring import Entity, EntityId, Retriever, ScoredEntity, TenantId
from redstring.graph.sqlite import SqliteGraphStore
from redstring.projections.vectors import embed_entities
from redstring.providers import FakeEmbeddingProvider
from redstring.storage.sqlite import SqliteDatabase
from redstring.stores import InMemoryGraphStore, InMemoryVectorStore
from redstring.testing._support import fixed_id, fresh_tenant, property_settings
from redstring.vector.sqlite import SqliteVectorStore

DIMENSION = 16
WORDS = ["mill", "river", "stone", "gear", "wheel", "salt", "miller", "rivers", "stoner"]

names = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
corpora = st.lists(st.tuples(names, st.booleans()), min_size=1, max_size=30)
queries = st.one_of(
    names, st.sampled_from(["mil", "rivr", "stone gear", "salt mill wheel", "gears"])
)


def open_stores(
    backend: str, folder: Path
) -> tuple[InMemoryGraphStore | SqliteGraphStore, InMemoryVectorStore | SqliteVectorStore]:
    if backend == "memory":
        return InMemoryGraphStore(), InMemoryVectorStore(dimension=DIMENSION)
    database = SqliteDatabase(folder / "stores.db")
    return SqliteGraphStore(database), SqliteVectorStore(database, dimension=DIMENSION)


async def first_n_agree(backend: str, corpus: list[tuple[str, bool]], query: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        graph, vectors = open_stores(backend, Path(folder))
        tenant: TenantId = fresh_tenant()
        entities = [
            Entity(id=fixed_id(n), tenant_id=tenant, entity_type="thing", name=name)
            for n, (name, _) in enumerate(corpus)
        ]
        provider = FakeEmbeddingProvider(dimension=DIMENSION)
        # The first always has a vector, so the semantic channel answers something.
        embedded = [e for n, e in enumerate(entities) if n == 0 or corpus[n][1]]
        await graph.upsert(entities)
        await vectors.upsert(await embed_entities(provider, embedded))
        retriever = Retriever(embeddings=provider, vectors=vectors, graph=graph)
        whole = await retriever.retrieve(query, tenant, k=len(corpus) + 2)
        assert whole.matches
        for n in range(1, len(corpus) + 2):
            part = await retriever.retrieve(query, tenant, k=n)
            assert [fused(m) for m in part.matches] == [fused(m) for m in whole.matches[:n]], n
            for small, large in zip(part.matches, whole.matches, strict=False):
                # A semantic score is only known as deep as the channel was read.
                assert small.semantic in (None, large.semantic)


def fused(match: ScoredEntity) -> tuple[EntityId, float, float | None]:
    """What does not depend on how deep the semantic channel was read."""
    return match.entity.id, match.score, match.lexical


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
@property_settings
@given(corpus=corpora, query=queries)
def test_the_first_n_entities_are_the_same_for_every_k(
    backend: str, corpus: list[tuple[str, bool]], query: str
) -> None:
    asyncio.run(first_n_agree(backend, corpus, query))
