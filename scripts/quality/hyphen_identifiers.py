"""Hyphenated identifiers holding a digit, found in one document: is it LEXICAL's first?

    uv run python -m scripts.quality.hyphen_identifiers

For the elements and python passage sets and this repository's `docs/`:
every token of letters and digits joined by hyphens (`x86-64`, `utf-8`,
`carbon-14`) holding a digit and a letter, found in exactly one document, is
asked as a LEXICAL query against an in-memory store indexed with the
library's chunking. Printed per collection: how many such tokens, and how
often their document is first and in the first 3 (ADR 0665).
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from redstring import ChunkRetriever, SourceDocument, index_documents
from redstring.stores import InMemoryChunkStore

from .harness import TENANT
from .passage_sets import PASSAGE_SETS, load_passage_set

ROOT = Path(__file__).resolve().parents[2]
TOKEN = re.compile(r"(?<![\w.-])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+(?![\w-])")


def collections() -> Iterator[tuple[str, list[SourceDocument]]]:
    for name, path in PASSAGE_SETS.items():
        yield name, list(load_passage_set(path).documents)
    files = sorted((ROOT / "docs").rglob("*.md"))
    yield "docs", [SourceDocument(id=str(p), text=p.read_text(encoding="utf-8")) for p in files]


async def measure(docs: list[SourceDocument]) -> tuple[int, int, int]:
    """How many lone tokens, how many found first, how many in the first 3."""
    where: dict[str, set[str]] = defaultdict(set)
    for doc in docs:
        for token in TOKEN.findall(doc.text):
            if re.search(r"\d", token) and re.search(r"[A-Za-z]", token):
                where[token].add(doc.id)
    lone = sorted(token for token, ids in where.items() if len(ids) == 1)
    store = InMemoryChunkStore(dimension=2)
    await index_documents(docs, chunks=store, tenant_id=TENANT)
    retriever = ChunkRetriever.lexical_only(chunks=store)
    first = top3 = 0
    for token in lone:
        answer = await retriever.retrieve_chunks(token, TENANT, k=10)
        ids = list(dict.fromkeys(m.chunk.source_id for m in answer.matches))
        [target] = where[token]
        first += ids[:1] == [target]
        top3 += target in ids[:3]
    return len(lone), first, top3


def main() -> None:
    for name, docs in collections():
        tokens, first, top3 = asyncio.run(measure(docs))
        print(f"{name}: {tokens} tokens, LEXICAL first {first}, in first 3 {top3}")


if __name__ == "__main__":
    main()
