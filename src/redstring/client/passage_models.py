"""Which embedding models wrote a tenant's passage vectors, and whether a search may embed.

A search that embeds its query compares it with the stored passages'
vectors; under another model than every one that wrote them, the scores mean
nothing, however alike the dimensions (ADR 0545). Before such a search the
client asks the chunk store whether any vector names the client's model
(`ChunkModels.embeds_with`, which stops at the first that does) and keeps a
yes until a write through the client (`index`, `remove` and `build` each run
inside `writing()`); a no is asked again each time, so a tenant another
process re-embeds is searched once it holds the model. The models' counts
(`embedding_models`, which reads every embedded row) are read for
`describe()` and for a refusal's message, and kept the same way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from redstring.domain.errors import EmbeddingModelMismatchError
from redstring.domain.ids import TenantId
from redstring.ports.chunk_store import ChunkModels
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.projections.vectors import embedding_model


class PassageModels:
    """The models of one tenant's passage vectors, as the client last read them."""

    def __init__(self) -> None:
        self._known: dict[str | None, int] | None = None
        self._allowed: set[str] = set()  # models a search was let embed with
        #: Moved by every write's start and end: a read overlapping a write is not kept.
        self._version = 0
        self._writes = 0

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """Around a write that may change the tenant's passages: forget what was read."""
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

    async def of(self, chunks: object, tenant_id: TenantId) -> dict[str | None, int]:
        """How many passage vectors of `tenant_id` each model made (`None`: unnamed).

        A store that cannot count them (no `ChunkModels`, one written before
        it) gives `{}`: nothing says a model differs.
        """
        if self._known is not None:
            return self._known
        if not isinstance(chunks, ChunkModels):
            return {}
        version = self._version
        found = await chunks.embedding_models(tenant_id)
        if version == self._version and self._writes == 0:
            self._known = found
        return found

    async def require(
        self, chunks: object, tenant_id: TenantId, embeddings: EmbeddingProvider, *, fix: str
    ) -> None:
        """Refuse a search embedding its query with `embeddings` when no passage vector of
        `tenant_id` was made by that model (`EmbeddingModelMismatchError`, naming `fix`)."""
        model = embedding_model(embeddings)
        if model in self._allowed or not isinstance(chunks, ChunkModels):
            return
        version = self._version
        if not await chunks.embeds_with(tenant_id, {model, None}):
            refusal = model_mismatch(await self.of(chunks, tenant_id), embeddings, fix=fix)
            if refusal is not None:
                raise refusal
        if version == self._version and self._writes == 0:
            self._allowed.add(model)


def model_mismatch(
    stored: Mapping[str | None, int] | Mapping[str, int],
    embeddings: EmbeddingProvider,
    *,
    fix: str,
) -> EmbeddingModelMismatchError | None:
    """The refusal of a search embedding with `embeddings` over passage vectors of the
    models `stored` counts, or `None` when it may run.

    A tenant holding no vector may run, and so may one holding a vector that
    names no model (`None`, or `""` as `TenantCatalogue` lists it: written
    before models were recorded): nothing says the model differs.
    """
    model = embedding_model(embeddings)
    if not stored or model in stored or None in stored or "" in stored:
        return None
    named = {name: count for name, count in stored.items() if name}
    return EmbeddingModelMismatchError(stored=named, model=model, fix=fix)
