"""Turning text into vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Embeds texts into vectors of a fixed `dimension`.

    `embed` returns one vector per text, in the order given (order is the
    contract); an empty input returns `[]`. `embed_query` embeds texts that are
    search queries, which an asymmetric model (e5, bge) may encode differently
    from the documents it searches; a symmetric model returns what `embed` does.
    """

    @property
    def dimension(self) -> int:
        """The length of every vector this provider returns."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for documents, one per text, in input order."""
        ...

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for search queries, one per text, in input order."""
        ...


@runtime_checkable
class NamedModel(Protocol):
    """A provider that names its model, so what it embedded can be told apart (B20)."""

    @property
    def model(self) -> str:
        """The model's name, as its server or package gives it."""
        ...
