"""End to end: a small graph of people and organisations, then retrieval in every mode.

Run it with `uv run python examples/end_to_end.py`. It uses only the public
`redstring` package (plus the standard library): in-memory stores and the
deterministic fake embedding provider, so it needs no model and no network.
The fake provider's vectors reflect shared words, not meaning, so the semantic
scores here show the mechanics, not what a real model would rank.

The second query shows per-token blocking (ADR 0070): "Lovelace" alone
shares the key of its token with "Ada Lovelace", so the lexical channel
finds it too.
"""

from __future__ import annotations

import asyncio

from redstring import (
    Entity,
    FakeEmbeddingProvider,
    InMemoryGraphStore,
    InMemoryVectorStore,
    RetrievalMode,
    RetrievalResult,
    Retriever,
    TenantId,
    VectorRecord,
    new_tenant_id,
)

PEOPLE = {
    "Ada Lovelace": "mathematician who wrote the first published program",
    "Charles Babbage": "designer of the analytical engine",
    "Grace Hopper": "computer scientist who built the first compiler",
    "Alan Turing": "mathematician who defined computability",
    "Barbara Liskov": "computer scientist known for data abstraction",
    "Edsger Dijkstra": "computer scientist known for shortest paths",
    "Katherine Johnson": "mathematician who computed orbital trajectories",
}
ORGANISATIONS = {
    "ACME Corporation": "maker of anvils and rockets",
    "Analytical Engines Ltd": "builder of mechanical computers",
    "Bletchley Park": "codebreaking centre of the second world war",
    "Zebra Holdings": "investment company",
    "Harvard Computation Lab": "laboratory that ran the Mark I",
}
QUERIES = ["Acme Corp", "Lovelace"]


async def build(tenant_id: TenantId) -> Retriever:
    """Write a dozen entities into both stores and wire a retriever over them."""
    embeddings = FakeEmbeddingProvider(dimension=384)
    vectors = InMemoryVectorStore(dimension=384)
    graph = InMemoryGraphStore()
    entities = [
        Entity(tenant_id=tenant_id, entity_type=entity_type, name=name, description=about)
        for entity_type, group in (("person", PEOPLE), ("organisation", ORGANISATIONS))
        for name, about in group.items()
    ]
    await graph.upsert(entities)
    embedded = await embeddings.embed([f"{e.name}\n{e.description}" for e in entities])
    await vectors.upsert(
        [
            VectorRecord(
                tenant_id=tenant_id,
                entity_id=entity.id,
                entity_type=entity.entity_type,
                vector=vector,
            )
            for entity, vector in zip(entities, embedded, strict=True)
        ]
    )
    return Retriever(embeddings=embeddings, vectors=vectors, graph=graph)


def show(result: RetrievalResult, mode: RetrievalMode) -> None:
    """Print one result: rank, entity, fused score, and each channel's own score."""
    print(f"query {result.query!r}, mode {mode.value}")
    if not result.matches:
        print("   (no matches)")
    for rank, match in enumerate(result.matches, start=1):
        semantic = "-" if match.semantic is None else f"{match.semantic:.3f}"
        lexical = "-" if match.lexical is None else f"{match.lexical:.3f}"
        print(
            f"  {rank}. {match.entity.name} ({match.entity.entity_type})"
            f"  fused {match.score:.4f}  semantic {semantic}  lexical {lexical}"
        )


async def main() -> None:
    tenant_id = new_tenant_id()
    retriever = await build(tenant_id)
    for query in QUERIES:
        for mode in (RetrievalMode.HYBRID, RetrievalMode.SEMANTIC, RetrievalMode.LEXICAL):
            show(await retriever.retrieve(query, tenant_id, k=3, mode=mode), mode)
        print()


if __name__ == "__main__":
    asyncio.run(main())
