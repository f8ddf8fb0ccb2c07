"""Identifiers found in exactly one document of a folder: is that document first?

    nice -n 10 uv run python -m scripts.quality.identifiers [--folder DIR] [--sample N]

Indexes every Markdown and text file under `--folder` (the repository's
`docs/`, README, BACKLOG and CLAUDE.md by default) with the library's own
chunking and the local MiniLM model, into an in-memory store; draws
`--sample` identifiers (whole tokens of six characters or more holding an
underscore, a dot or slash between letters, or a capital inside a word:
`snake_case`, `os.path`, `docs/file-name.md`, `camelCase`; not hyphenated
words, which prose writes) that occur in exactly one file; and
asks each as a query. Printed: how often that file's passage is HYBRID's
and LEXICAL's first result and in their first 3, under the library's
analysis and under its words alone (compound terms left out, as indexes
were analysed before they counted), both in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from redstring import ChunkRetriever, RetrievalMode, SourceDocument, index_documents
from redstring.domain.tokenize import COMPOUND_JOINER, Analyzer
from redstring.llm.local_embedding import LocalEmbeddingProvider
from redstring.stores import InMemoryChunkStore
from scripts.compare_analysis import analysed_by

from .harness import TENANT

ROOT = Path(__file__).resolve().parents[2]
#: A run of letters and digits joined by `_ . / : -`, ends trimmed of joiners.
TOKEN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_./:-]*[A-Za-z0-9])?")
#: What makes a token an identifier: an underscore, a dot or slash between letters,
#: or a capital inside a word (`camelCase`).
IDENTIFIER = re.compile(r"_|[A-Za-z][./][A-Za-z]|[a-z][A-Z]")
_LIBRARY_TERMS = Analyzer.terms


def words_only(analyzer: Analyzer, text: str) -> list[str]:
    """The library's terms without its compound terms."""
    return [term for term in _LIBRARY_TERMS(analyzer, text) if COMPOUND_JOINER not in term]


def documents(folder: Path | None) -> list[SourceDocument]:
    files = (
        sorted(folder.rglob("*.md")) + sorted(folder.rglob("*.txt"))
        if folder
        else [
            *sorted((ROOT / "docs").rglob("*.md")),
            *(ROOT / name for name in ("README.md", "BACKLOG.md", "CLAUDE.md")),
        ]
    )
    return [SourceDocument(id=str(path), text=path.read_text(encoding="utf-8")) for path in files]


def lone_identifiers(docs: list[SourceDocument], sample: int, seed: int) -> dict[str, str]:
    """Up to `sample` identifiers of six characters or more found in one document, each
    with that document's id."""
    where: dict[str, set[str]] = defaultdict(set)
    for doc in docs:
        for found in TOKEN.findall(doc.text):
            if IDENTIFIER.search(found):
                where[found].add(doc.id)
    lone = sorted(word for word, ids in where.items() if len(ids) == 1 and len(word) >= 6)
    drawn = random.Random(seed).sample(lone, min(sample, len(lone)))
    return {word: next(iter(where[word])) for word in drawn}


class RememberedEmbeddings(LocalEmbeddingProvider):
    """The local model, each text embedded once across runs of the same folder."""

    def __init__(self) -> None:
        super().__init__()
        self._known: dict[str, list[float]] = {}

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        fresh = [text for text in dict.fromkeys(texts) if text not in self._known]
        if fresh:
            self._known.update(zip(fresh, await super().embed(fresh), strict=True))
        return [self._known[text] for text in texts]


async def firsts(
    docs: list[SourceDocument],
    asked: dict[str, str],
    embeddings: LocalEmbeddingProvider,
    misses: bool = False,
) -> Counter[str]:
    store = InMemoryChunkStore(dimension=embeddings.dimension)
    await index_documents(docs, chunks=store, tenant_id=TENANT, embeddings=embeddings)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    counts: Counter[str] = Counter()
    for word, doc in asked.items():
        for mode in (RetrievalMode.HYBRID, RetrievalMode.LEXICAL):
            found = await retriever.retrieve_chunks(word, TENANT, k=3, mode=mode)
            sources = [match.chunk.source_id for match in found.matches]
            counts[f"{mode.value} first"] += sources[:1] == [doc]
            counts[f"{mode.value} in first 3"] += doc in sources
            if misses and mode is RetrievalMode.HYBRID and sources[:1] != [doc]:
                print(f"  HYBRID missed {word!r} ({doc}): first {sources[:1]}")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, help="a folder of .md and .txt files")
    parser.add_argument("--sample", type=int, default=150, help="identifiers asked")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--misses", action="store_true", help="print HYBRID's misses")
    args = parser.parse_args()
    docs = documents(args.folder)
    asked = lone_identifiers(docs, args.sample, args.seed)
    print(f"{len(docs)} documents, {len(asked)} identifiers each found in one of them")
    embeddings = RememberedEmbeddings()
    for label, terms in (("library analysis", None), ("words only", words_only)):
        with analysed_by(terms):
            counts = asyncio.run(firsts(docs, asked, embeddings, args.misses and terms is None))
        shown = ", ".join(f"{name} {n} of {len(asked)}" for name, n in sorted(counts.items()))
        print(f"{label}: {shown}")


if __name__ == "__main__":
    main()
