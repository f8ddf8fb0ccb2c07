"""Embedding entities, and folding embeddings and merges into a vector store."""

from __future__ import annotations

from collections.abc import Sequence

from redstring.domain.entity import Entity
from redstring.domain.events import EntitiesEmbedded, EntitiesMerged, EntitiesRetired, Event
from redstring.domain.ids import TenantId
from redstring.domain.vector import VectorRecord
from redstring.ports.embedding_provider import EmbeddingProvider, NamedModel
from redstring.ports.vector_store import VectorWriter


def embedding_text(entity: Entity) -> str:
    """The text an entity is embedded from: name, type and description.

    More than the bare name, so a query describing an entity can find it.
    """
    head = f"{entity.name} ({entity.entity_type})"
    description = entity.description.strip()
    return f"{head}: {description}" if description else head


async def embed_entities(
    provider: EmbeddingProvider, entities: Sequence[Entity]
) -> list[VectorRecord]:
    """One record per entity, embedded on the provider's document side (`embed`), in order."""
    if not entities:
        return []
    vectors = await provider.embed([embedding_text(entity) for entity in entities])
    return [
        VectorRecord(
            tenant_id=entity.tenant_id,
            entity_id=entity.id,
            entity_type=entity.entity_type,
            vector=vector,
        )
        for entity, vector in zip(entities, vectors, strict=True)
    ]


def embedding_model(provider: EmbeddingProvider) -> str:
    """The provider's model name when it gives one (`NamedModel`), else its class name."""
    return provider.model if isinstance(provider, NamedModel) else type(provider).__name__


async def embedded_event(
    provider: EmbeddingProvider, entities: Sequence[Entity], tenant_id: TenantId
) -> EntitiesEmbedded:
    """The `EntitiesEmbedded` of `entities`, naming the model and the dimension."""
    return EntitiesEmbedded(
        tenant_id=tenant_id,
        records=await embed_entities(provider, entities),
        model=embedding_model(provider),
        dimension=provider.dimension,
    )


def with_model(event: EntitiesEmbedded) -> list[VectorRecord]:
    """`event`'s records, each naming the model the event names (ADR 0655).

    A record already naming one keeps it when the event names none (an event
    written before events named their model).
    """
    if event.model is None:
        return list(event.records)
    return [record.model_copy(update={"model": event.model}) for record in event.records]


class VectorProjection:
    """Writes embedded vectors into `vectors` and deletes those of merged-away entities."""

    name = "vectors"

    def __init__(self, vectors: VectorWriter) -> None:
        self._vectors = vectors

    async def apply(self, event: Event) -> None:
        """Upsert an `EntitiesEmbedded`'s records, each naming the event's model; delete
        merged-away and retired ids."""
        if isinstance(event, EntitiesEmbedded):
            await self._vectors.upsert(with_model(event))
        elif isinstance(event, EntitiesMerged):
            await self._vectors.delete(event.merged_ids, event.tenant_id)
        elif isinstance(event, EntitiesRetired):
            await self._vectors.delete(event.retired_ids, event.tenant_id)
