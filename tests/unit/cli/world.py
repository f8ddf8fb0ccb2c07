"""Two tenants in real in-memory stores, with the same entity and chunk ids in both.

`HOME` is the tenant a server or command is configured for; `OTHER` holds
entities under the very ids `HOME` uses (forced, not derived) plus some only
it has, each marked `SECRET` so a leak is visible in any answer.
"""

from __future__ import annotations

from uuid import UUID

from redstring import Entity, EntityId, Relationship, SourceDocument, TenantId, index_documents
from redstring.client.store_set import StoreSet
from redstring.client.tenants import parse_tenant
from redstring.projections.vectors import embed_entities
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryChunkStore, InMemoryGraphStore, InMemoryVectorStore

DIMENSION = 32
HOME = parse_tenant("home")
OTHER = parse_tenant("other")


def fixed(n: int) -> EntityId:
    return EntityId(UUID(f"00000000-0000-4000-8000-{n:012x}"))


ADA, BABBAGE, HOPPER, ACME = fixed(1), fixed(2), fixed(3), fixed(4)
OTHER_ONLY = fixed(99)


def _entity(tenant: TenantId, entity_id: EntityId, name: str, kind: str, text: str) -> Entity:
    return Entity(tenant_id=tenant, id=entity_id, name=name, entity_type=kind, description=text)


def home_entities() -> list[Entity]:
    return [
        _entity(HOME, ADA, "Ada Lovelace", "person", "wrote the first program"),
        _entity(HOME, BABBAGE, "Charles Babbage", "person", "designed the Analytical Engine"),
        _entity(HOME, HOPPER, "Grace Hopper", "person", "wrote the first compiler"),
        _entity(HOME, ACME, "ACME Corporation", "organization", "makes anvils"),
    ]


def other_entities() -> list[Entity]:
    return [
        _entity(OTHER, ADA, "Ada Lovelace", "person", "SECRET other-tenant Ada"),
        _entity(OTHER, OTHER_ONLY, "Ada Byron", "person", "SECRET only in the other tenant"),
    ]


async def populated_stores() -> tuple[StoreSet, FakeEmbeddingProvider]:
    """Both tenants written into fresh in-memory stores, embedded with the fake provider."""
    embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
    graph = InMemoryGraphStore()
    vectors = InMemoryVectorStore(dimension=DIMENSION)
    chunks = InMemoryChunkStore(dimension=DIMENSION)
    for tenant, entities in ((HOME, home_entities()), (OTHER, other_entities())):
        first = entities[0]
        relationships = [
            Relationship(
                tenant_id=tenant,
                source_id=first.id,
                target_id=other.id,
                relationship_type="worked_with",
            )
            for other in entities[1:2]
        ]
        await graph.upsert(entities, relationships)
        await vectors.upsert(await embed_entities(embeddings, entities))
    await index_documents(
        [SourceDocument(id="notes.md", text="Ada Lovelace wrote the first program in 1843.")],
        chunks=chunks,
        tenant_id=HOME,
        embeddings=embeddings,
    )
    await index_documents(
        [SourceDocument(id="notes.md", text="SECRET: Ada Lovelace notes of the other tenant.")],
        chunks=chunks,
        tenant_id=OTHER,
        embeddings=embeddings,
    )
    stores = StoreSet(backend="memory", graph=graph, vectors=vectors, chunks=chunks)
    return stores, embeddings
