"""The contract every `EmbeddingProvider` adapter satisfies.

Subclass `EmbeddingProviderCompliance` and implement `make_provider`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import pytest

from redstring.ports.embedding_provider import EmbeddingProvider


class EmbeddingProviderCompliance(ABC):
    """Behaviour any `EmbeddingProvider` must show."""

    @abstractmethod
    async def make_provider(self) -> EmbeddingProvider:
        """A ready provider."""

    @pytest.mark.asyncio
    async def test_one_vector_per_text_of_the_stated_dimension(self) -> None:
        provider = await self.make_provider()
        texts = ["Ada Lovelace", "Charles Babbage", "the Analytical Engine"]
        for vectors in (await provider.embed(texts), await provider.embed_query(texts)):
            assert len(vectors) == len(texts)
            assert all(len(vector) == provider.dimension for vector in vectors)
            assert all(math.isfinite(x) for vector in vectors for x in vector)

    @pytest.mark.asyncio
    async def test_order_is_preserved(self) -> None:
        provider = await self.make_provider()
        texts = ["Ada Lovelace", "Charles Babbage", "Grace Hopper", "Alan Turing"]
        together = await provider.embed(texts)
        alone = [(await provider.embed([text]))[0] for text in texts]
        for joint, single in zip(together, alone, strict=True):
            assert joint == pytest.approx(single, abs=1e-4)

    @pytest.mark.asyncio
    async def test_an_empty_input_gives_an_empty_output(self) -> None:
        provider = await self.make_provider()
        assert await provider.embed([]) == []
        assert await provider.embed_query([]) == []

    @pytest.mark.asyncio
    async def test_the_same_text_embeds_the_same_way(self) -> None:
        provider = await self.make_provider()
        [first] = await provider.embed(["Ada Lovelace"])
        [second] = await provider.embed(["Ada Lovelace"])
        assert first == pytest.approx(second, abs=1e-5)
