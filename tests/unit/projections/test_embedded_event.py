"""An `EntitiesEmbedded` names the model and the dimension that made its vectors (B20)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from redstring import Entity
from redstring.llm.openai_compatible import OpenAICompatibleEmbeddingProvider
from redstring.projections.vectors import embedded_event, embedding_model
from redstring.providers import FakeEmbeddingProvider
from tests.factories import DEFAULT_TENANT


class Unnamed:
    """An embedding provider that does not name its model."""

    dimension = 2

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.embed(texts)


@pytest.mark.asyncio
async def test_the_event_names_the_model_and_the_dimension() -> None:
    ada = Entity(tenant_id=DEFAULT_TENANT, entity_type="person", name="Ada Lovelace")
    event = await embedded_event(FakeEmbeddingProvider(dimension=8), [ada], DEFAULT_TENANT)
    assert (event.model, event.dimension) == ("fake-hashed-words", 8)
    assert [record.entity_id for record in event.records] == [ada.id]
    unnamed = await embedded_event(Unnamed(), [ada], DEFAULT_TENANT)
    assert (unnamed.model, unnamed.dimension) == ("Unnamed", 2)


def test_a_server_model_is_named_by_the_servers_name_for_it() -> None:
    provider = OpenAICompatibleEmbeddingProvider(
        base_url="http://127.0.0.1:9/v1", model="nomic-embed-text", dimension=768
    )
    assert embedding_model(provider) == "nomic-embed-text"
