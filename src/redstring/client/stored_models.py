"""Which embedding models wrote a tenant's passage and entity vectors, and whether a search
may embed.

A search that embeds its query compares it with the stored vectors; under
another model than every one that wrote them, the scores mean nothing,
however alike the dimensions (ADR 0545 for passages, 0655 for entities).
Before such a search the client asks the store whether any vector names the
client's model (`ChunkModels.embeds_with`, `VectorModels.embeds_with`, each
stopping at the first that does) and keeps a yes until a write through the
client (`index`, `remove`, `build`, `undo` and `rebuild` each run inside
`writing()`); a no is asked again each time, so a tenant another process
re-embeds is searched once it holds the model. The models' counts
(`embedding_models`) are read for `describe()` and for a refusal's message,
and kept the same way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Literal

from redstring.domain.errors import EmbeddingModelMismatchError
from redstring.domain.ids import TenantId
from redstring.ports.chunk_store import ChunkModels
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.vector_store import VectorModels
from redstring.projections.vectors import embedding_model

type Items = Literal["passages", "entities"]


class StoredModels:
    """The models of one tenant's passage or entity vectors, as the client last read them."""

    def __init__(self, items: Items) -> None:
        self.items: Items = items
        self._capability = ChunkModels if items == "passages" else VectorModels
        self._known: dict[str | None, int] | None = None
        self._allowed: set[str] = set()  # models a search was let embed with
        #: Moved by every write's start and end: a read overlapping a write is not kept.
        self._version = 0
        self._writes = 0

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """Around a write that may change the tenant's vectors: forget what was read."""
        self._forget(+1)
        try:
            yield
        finally:
            self._forget(-1)

    def _forget(self, writes: int) -> None:
        self._known = None
        self._allowed = set()
        self._version += 1
        self._writes += writes

    async def of(self, store: object, tenant_id: TenantId) -> dict[str | None, int]:
        """How many vectors of `tenant_id` each model made (`None`: unnamed).

        A store that cannot count them (no `ChunkModels` or `VectorModels`,
        one written before it) gives `{}`: nothing says a model differs.
        """
        if self._known is not None:
            return self._known
        if not isinstance(store, self._capability):
            return {}
        version = self._version
        found = await store.embedding_models(tenant_id)
        if version == self._version and self._writes == 0:
            self._known = found
        return found

    async def require(
        self, store: object, tenant_id: TenantId, embeddings: EmbeddingProvider, *, fix: str
    ) -> None:
        """Refuse a search embedding its query with `embeddings` when no vector of
        `tenant_id` was made by that model (`EmbeddingModelMismatchError`, naming `fix`)."""
        model = embedding_model(embeddings)
        if model in self._allowed or not isinstance(store, self._capability):
            return
        version = self._version
        if not await store.embeds_with(tenant_id, {model, None}):
            stored = await self.of(store, tenant_id)
            refusal = model_mismatch(stored, embeddings, fix=fix, items=self.items)
            if refusal is not None:
                raise refusal
        if version == self._version and self._writes == 0:
            self._allowed.add(model)


class PassageModels(StoredModels):
    """The models of one tenant's passage vectors (`ChunkModels`)."""

    def __init__(self) -> None:
        super().__init__("passages")


class TenantModels:
    """The client's reads of its tenant's models: of the passages and of the entities."""

    def __init__(self) -> None:
        self.passages = PassageModels()
        self.entities = StoredModels("entities")

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """Around a write that may change the tenant's passages or entities: forget both."""
        async with self.passages.writing(), self.entities.writing():
            yield


def model_mismatch(
    stored: Mapping[str | None, int] | Mapping[str, int],
    embeddings: EmbeddingProvider,
    *,
    fix: str,
    items: Items = "passages",
) -> EmbeddingModelMismatchError | None:
    """The refusal of a search embedding with `embeddings` over `items` vectors of the
    models `stored` counts, or `None` when it may run.

    A tenant holding no vector may run, and so may one holding a vector that
    names no model (`None`, or `""` as `TenantCatalogue` lists it: written
    before models were recorded): nothing says the model differs.
    """
    model = embedding_model(embeddings)
    if not stored or model in stored or None in stored or "" in stored:
        return None
    named = {name: count for name, count in stored.items() if name}
    return EmbeddingModelMismatchError(stored=named, model=model, fix=fix, items=items)
