"""End to end on the embedded default: build a graph from documents, then ask it questions.

    uv run python examples/end_to_end.py [DATABASE_FILE]

1. `build_graph` reads four short documents with a *scripted* language model
   (`FakeLlmProvider` gives the answers a model would, checked exactly as a
   real model's are), so the example needs no model server and no network. It
   merges duplicates, embeds the entities and folds everything into one SQLite
   file through its event log; `index_documents` then embeds the passages.
2. Entities are retrieved in the hybrid, semantic and lexical modes, and
   passages by BM25 and cosine, each match with its fused score and each
   channel's own score on 0..1 (`-` where that channel did not rank it).

Embeddings come from the in-process all-MiniLM-L6-v2 model when the `local`
extra is installed (`uv sync --all-extras`, as CI does), else from the
deterministic fake provider, whose vectors reflect shared words, not meaning.
The database is written to a temporary folder, removed at the end, unless a
path is given.

"Lovelace" alone shares the key of its token with "Ada Lovelace" (per-token
blocking, ADR 0070), so the lexical channel finds it too.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from uuid import UUID

from redstring import (
    ChunkRetrievalResult,
    ChunkRetriever,
    RetrievalMode,
    RetrievalResult,
    Retriever,
    SourceDocument,
    TenantId,
    build_graph,
    index_documents,
)
from redstring.errors import MissingExtraError
from redstring.ports import EmbeddingProvider
from redstring.providers import FakeEmbeddingProvider, FakeLlmProvider, LocalEmbeddingProvider
from redstring.stores import open_sqlite

TENANT = TenantId(UUID("7e6a1f0c-2b7d-4c1e-9a55-0d3c2f1e8b40"))

DOCUMENTS = [
    SourceDocument(
        id="lovelace.md",
        text=(
            "Ada Lovelace was an English mathematician and writer. She worked with "
            "Charles Babbage on his proposed Analytical Engine, and her notes on it contain "
            "what is considered the first published computer program."
        ),
    ),
    SourceDocument(
        id="babbage.md",
        text=(
            "Charles Babbage was an English polymath who originated the idea of a "
            "programmable computer. He designed the Difference Engine and later the "
            "Analytical Engine, a mechanical general-purpose computer. C. Babbage worked "
            "in London."
        ),
    ),
    SourceDocument(
        id="hopper.md",
        text=(
            "Grace Hopper was an American computer scientist and United States Navy rear "
            "admiral. She built one of the first compilers and helped create COBOL while "
            "working at Remington Rand."
        ),
    ),
    SourceDocument(
        id="acme.md",
        text=(
            "ACME Corporation is a fictional manufacturer of anvils, rockets and traps. "
            "Acme Corp. sells mostly by mail order."
        ),
    ),
]


def person(name: str, description: str) -> dict[str, str]:
    return {"name": name, "type": "person", "description": description}


# The answers a model would give for each document, chosen by a phrase of the prompt.
MODEL = FakeLlmProvider(
    by_substring={
        "Choose the domain schema": {"domain": "people_and_organisations", "confidence": 0.9},
        "first published computer program": {
            "entities": [
                person("Ada Lovelace", "English mathematician the first computer program"),
                person("Charles Babbage", "inventor of the Analytical Engine"),
            ],
            "relationships": [
                {"source": "Ada Lovelace", "target": "Charles Babbage", "type": "knows"}
            ],
        },
        "originated the idea of a programmable computer": {
            "entities": [
                person(
                    "Charles Babbage",
                    "English polymath who designed the Difference Engine and the "
                    "Analytical Engine, a mechanical general-purpose computer",
                ),
                person("Charles Babage", "worked in London"),
                {"name": "London", "type": "location", "description": "capital of England"},
            ],
            "relationships": [
                {"source": "Charles Babage", "target": "London", "type": "located_in"}
            ],
        },
        "rear admiral": {
            "entities": [
                person("Grace Hopper", "American computer scientist who built early compilers"),
                {
                    "name": "Remington Rand",
                    "type": "organization",
                    "description": "American business machines maker",
                },
            ],
            "relationships": [
                {"source": "Grace Hopper", "target": "Remington Rand", "type": "works_for"}
            ],
        },
        "anvils, rockets and traps": {
            "entities": [
                {
                    "name": "ACME Corporation",
                    "type": "organization",
                    "description": "fictional maker of anvils, rockets and traps",
                },
            ],
            "relationships": [],
        },
    }
)

ENTITY_QUERIES = [
    ("Acme Corp", None),
    ("Lovelace", None),
    ("who designed a mechanical computer", RetrievalMode.SEMANTIC),
]
PASSAGE_QUERIES = ["first compiler", "mechanical general-purpose computer"]


def embedding_provider() -> EmbeddingProvider:
    """The local model when its extra is installed, else the deterministic fake."""
    try:
        return LocalEmbeddingProvider()
    except MissingExtraError:
        print("(local model not installed: using the fake embedding provider)")
        return FakeEmbeddingProvider(dimension=384)


def show_entities(result: RetrievalResult, mode: RetrievalMode) -> None:
    print(f"query {result.query!r}, mode {mode.value}")
    if not result.matches:
        print("   (no matches)")
    for rank, match in enumerate(result.matches, start=1):
        print(
            f"  {rank}. {match.entity.name} ({match.entity.entity_type})"
            f"  fused {match.score:.4f}  semantic {_score(match.semantic)}"
            f"  lexical {_score(match.lexical)}"
        )


def show_passages(result: ChunkRetrievalResult) -> None:
    print(f"passages for {result.query!r}")
    for rank, match in enumerate(result.matches, start=1):
        text = match.chunk.text if len(match.chunk.text) <= 70 else match.chunk.text[:67] + "..."
        print(
            f"  {rank}. [{match.chunk.source_id}] {text}"
            f"  semantic {_score(match.semantic)}  lexical {_score(match.lexical)}"
        )


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


async def main(path: Path) -> None:
    embeddings = embedding_provider()
    async with open_sqlite(path, dimension=embeddings.dimension) as stores:
        report = await build_graph(
            DOCUMENTS,
            provider=MODEL,
            tenant_id=TENANT,
            graph=stores.graph,
            embeddings=embeddings,
            vectors=stores.vectors,
            chunks=stores.chunks,
            log=stores.events,
        )
        print(
            f"built {path}: {report.entities_written} entities, "
            f"{report.relationships_written} relationships, {len(report.merges)} merge(s), "
            f"domain {report.domain}, {report.events_appended} events"
        )
        indexed = await index_documents(
            DOCUMENTS, chunks=stores.chunks, tenant_id=TENANT, embeddings=embeddings
        )
        # The build stored every passage already, so indexing again finds them unchanged.
        print(
            f"passages: {report.chunks_written} written by the build, "
            f"{indexed.unchanged} documents unchanged when indexed again\n"
        )

        entities = Retriever(embeddings=embeddings, vectors=stores.vectors, graph=stores.graph)
        for query, only in ENTITY_QUERIES:
            for mode in [only] if only else list(RetrievalMode):
                show_entities(await entities.retrieve(query, TENANT, k=3, mode=mode), mode)
            print()
        passages = ChunkRetriever(embeddings=embeddings, chunks=stores.chunks)
        for query in PASSAGE_QUERIES:
            show_passages(await passages.retrieve_chunks(query, TENANT, k=2))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(main(Path(sys.argv[1])))
    else:
        # The temporary folder goes when the example ends, even on an error.
        with tempfile.TemporaryDirectory(prefix="redstring-example-") as folder:
            asyncio.run(main(Path(folder) / "redstring.db"))
