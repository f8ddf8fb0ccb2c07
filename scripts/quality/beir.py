"""Public passage collections in BEIR's layout: load, measure (nDCG@10, Recall@100, ECE,
paired differences).

A collection directory holds `corpus.jsonl` (`_id`, `title`, `text`),
`queries.jsonl` (`_id`, `text`) or `queries.tsv` (id, text), and
`qrels/test.tsv` (BEIR's `query-id corpus-id score` with a header, or TREC's
`query 0 doc grade`); each may be gzipped (`.gz`). Grades above 0 are
relevant. `prepare_nfcorpus_release` writes that layout from NFCorpus as its
authors released it (`{test,dev}.docs`: lowercased, stopwords and numbers
removed) with BEIR's test queries and qrels, for lack of BEIR's own corpus
file (docs/benchmarks.md says which was measured).
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .harness import ndcg_at


@dataclass(frozen=True)
class Collection:
    """A passage collection: documents, test queries and their graded relevance."""

    name: str
    documents: dict[str, tuple[str, str]]  # id -> (title, text)
    queries: dict[str, str]
    qrels: dict[str, dict[str, float]]  # query id -> document id -> grade > 0

    def text_of(self, document_id: str) -> str:
        """The passage indexed for a document: its title and text, as BEIR's baselines join them."""
        title, text = self.documents[document_id]
        return f"{title} {text}".strip()


def _lines(path: Path) -> Iterator[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        yield from (line.rstrip("\n") for line in handle if line.strip())


def _first(folder: Path, *names: str) -> Path:
    for name in names:
        for candidate in (folder / name, folder / f"{name}.gz"):
            if candidate.exists():
                return candidate
    raise FileNotFoundError(f"{folder} holds none of {names} (nor their .gz)")


def load_collection(folder: Path) -> Collection:
    """The collection in `folder` (the module docstring's layout), test queries with qrels only."""
    documents = {}
    for line in _lines(_first(folder, "corpus.jsonl")):
        row = json.loads(line)
        documents[str(row["_id"])] = (row.get("title") or "", row.get("text") or "")
    queries_path = _first(folder, "queries.jsonl", "queries.tsv")
    if queries_path.name.startswith("queries.jsonl"):
        rows = (json.loads(line) for line in _lines(queries_path))
        queries = {str(row["_id"]): row["text"] for row in rows}
    else:
        queries = dict(line.split("\t", 1) for line in _lines(queries_path))
    qrels: dict[str, dict[str, float]] = {}
    for line in _lines(_first(folder, "qrels/test.tsv")):
        cells = line.split()
        if cells[0] == "query-id":
            continue
        query, document, grade = (cells[0], cells[1], cells[2]) if len(cells) == 3 else (
            cells[0], cells[2], cells[3]
        )  # fmt: skip
        if float(grade) > 0:
            qrels.setdefault(query, {})[document] = float(grade)
    return Collection(
        name=folder.name,
        documents=documents,
        queries={q: queries[q] for q in sorted(qrels) if q in queries},
        qrels={q: qrels[q] for q in sorted(qrels) if q in queries},
    )


def from_passage_set(name: str, path: Path) -> Collection:
    """A committed graded passage set (`passage_sets.py`) as a collection: all its queries."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    queries = {q["id"]: q["query"] for q in raw["queries"] if q.get("grades")}
    return Collection(
        name=name,
        documents={d["id"]: (d["title"], d["text"]) for d in raw["documents"]},
        queries=queries,
        qrels={
            q["id"]: {doc: float(g) for doc, g in q["grades"].items() if float(g) > 0}
            for q in raw["queries"]
            if q["id"] in queries
        },
    )


def prepare_nfcorpus_release(
    docs: Sequence[Path], topics: Path, qrels: Path, into: Path
) -> Collection:
    """Write NFCorpus's released `*.docs` (id TAB text) with BEIR's test topics
    (id TAB text, as anserini-tools keeps them) and qrels in the BEIR layout."""
    documents: dict[str, tuple[str, str]] = {}
    for path in docs:
        for line in _lines(path):
            doc_id, text = line.split("\t", 1)
            documents.setdefault(doc_id, ("", text))
    into.mkdir(parents=True, exist_ok=True)
    (into / "qrels").mkdir(exist_ok=True)
    with gzip.open(into / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
        for doc_id, (title, text) in documents.items():
            handle.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with gzip.open(into / "queries.tsv.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(f"{line}\n" for line in _lines(topics))
    with gzip.open(into / "qrels" / "test.tsv.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(f"{line}\n" for line in _lines(qrels))
    return load_collection(into)


def judged(query_id: str, ranking: Sequence[str], depth: int = 100) -> list[str]:
    """The first `depth` of `ranking` without the query's own document, as BEIR and MTEB
    judge a run (ArguAna's queries are documents of its corpus)."""
    return [document for document in ranking if document != query_id][:depth]


def recall_at(ranked: Sequence[str], relevant: Mapping[str, float], k: int = 100) -> float:
    """Share of the relevant documents (grade > 0) among the first `k` of `ranked`."""
    wanted = {doc for doc, grade in relevant.items() if grade > 0}
    return len(wanted.intersection(ranked[:k])) / len(wanted) if wanted else 0.0


def ndcg10(ranked: Sequence[str], relevant: Mapping[str, float]) -> float:
    """nDCG@10 with the grades as gains (as BEIR's pytrec_eval computes it)."""
    return ndcg_at(list(ranked), relevant, k=10)


def expected_calibration_error(pairs: Sequence[tuple[float, bool]], bins: int = 10) -> float:
    """ECE: over equal-width confidence bins, the share-weighted |accuracy - mean confidence|."""
    if not pairs:
        return math.nan
    total = 0.0
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        inside = [(c, r) for c, r in pairs if low <= c < high or (b == bins - 1 and c == 1.0)]
        if inside:
            accuracy = sum(r for _, r in inside) / len(inside)
            mean = sum(c for c, _ in inside) / len(inside)
            total += len(inside) / len(pairs) * abs(accuracy - mean)
    return total


def paired_difference(
    ours: Sequence[float], theirs: Sequence[float], *, draws: int = 10_000, seed: int = 0
) -> tuple[float, float, float]:
    """The mean of `ours[i] - theirs[i]` over the queries and its 95% paired
    bootstrap interval (percentiles of `draws` resamplings of the queries)."""
    if len(ours) != len(theirs) or not ours:
        raise ValueError("paired_difference needs one figure per query on each side")
    differences = np.asarray(ours, dtype=np.float64) - np.asarray(theirs, dtype=np.float64)
    shape = (draws, len(differences))
    picks = np.random.default_rng(seed).integers(0, len(differences), shape, dtype=np.int32)
    means = differences[picks].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(differences.mean()), float(low), float(high)
