"""HYBRID puts an entity holding every query word first, whatever the model says (ADR 0365).

The reproduction of issue 26 (ADR 0350) through the default fusion: 8,000
syllable names hide "Meir", "Satie" and "Rush" behind names that share their
prefixes and trigrams, and the semantic channel is hostile: it reads every
entity but the three wanted ones as close to any query and the wanted ones as
opposite. At `k=1` the rank-fusion pool is one entity, a look-alike both
channels ranked, so only the rule that puts holders of every word first
keeps the wanted one.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence

import numpy as np
import pytest

from redstring import Entity, RetrievalMode, Retriever, TenantId
from redstring.domain.fusion import DEFAULT_FUSION
from redstring.fusion import PooledEvidenceFusion
from redstring.projections.vectors import embed_entities
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryGraphStore, InMemoryVectorStore
from redstring.testing._support import fixed_id
from tests.unit.stores.test_exact_words_across_stores import FAMOUS, syllable_word

WANTED = {"Meir": "Golda Meir", "Satie": "Erik Satie", "Rush": "Benjamin Rush"}
DIMENSION = 16


class WantedAreOpposite(FakeEmbeddingProvider):
    """Every query reads as one direction; the wanted entities point away from it and
    every other entity close to it (cosine about 0.95)."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        [query] = np.array(await super().embed(["any query"]))
        vectors = []
        for text, own in zip(texts, np.array(await super().embed(texts)), strict=True):
            wanted = any(name in text for name in WANTED.values())
            vector = -query if wanted else query + 0.3 * own
            vectors.append((vector / np.linalg.norm(vector)).tolist())
        return vectors

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return await super().embed(["any query"] * len(texts))


async def hybrid_retriever(tenant: TenantId) -> Retriever:
    pick = random.Random(26).choice
    names = [f"{syllable_word(pick, 2)} {syllable_word(pick, 2)}" for _ in range(8_000)]
    entities = [
        Entity(id=fixed_id(n), tenant_id=tenant, entity_type="person", name=name)
        for n, name in enumerate([*names, *FAMOUS])
    ]
    graph, provider = InMemoryGraphStore(), WantedAreOpposite(dimension=DIMENSION)
    vectors = InMemoryVectorStore(dimension=DIMENSION)
    await graph.upsert(entities)
    await vectors.upsert(await embed_entities(provider, entities))
    return Retriever(embeddings=provider, vectors=vectors, graph=graph)


@pytest.mark.asyncio
async def test_the_reproduction_finds_meir_satie_and_rush_first_in_hybrid() -> None:
    tenant = TenantId(uuid.UUID(int=26))
    retriever = await hybrid_retriever(tenant)
    assert PooledEvidenceFusion() == DEFAULT_FUSION
    for query, wanted in WANTED.items():
        semantic = await retriever.retrieve(query, tenant, k=10, mode=RetrievalMode.SEMANTIC)
        assert wanted not in [m.entity.name for m in semantic.matches]  # the model is hostile
        for k in (1, 3, 10):
            result = await retriever.retrieve(query, tenant, k=k)
            assert result.matches[0].entity.name == wanted, (query, k)
