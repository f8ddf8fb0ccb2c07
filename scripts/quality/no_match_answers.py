"""Each query's best score per channel, from the local model, and the no-match recording.

`collect` asks every query of every entity corpus and of the element
passages (graded ones, the corpora's own `no_match` ones and the generated
`no_match_queries.json`) of each channel alone, through real retrievers, and
keeps what the confidence is fitted on: the channel's best score (semantic
score; lexical similarity for entities, `bm25_coverage` for passages). It
also returns the semantic answers of the holdout no-match queries, which
`record` writes to `NO_MATCH_RECORDED` beside the graded holdout answers
`semantic_answers.json.gz` already holds, so the CI floors replay both
without the model.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from redstring import RetrievalMode, Retriever
from redstring.llm.local_embedding import MODEL_SHA256, LocalEmbeddingProvider

from .common import DATA_DIR
from .harness import (
    CONFIDENCE_CORPORA,
    DEPTH,
    TENANT,
    QualityQuery,
    build_graph,
    build_vectors,
    load_entity_corpus,
)
from .no_match_queries import NO_MATCH_QUERIES, load_no_match
from .passage_sets import CHUNK_DEPTH, CONFIDENCE_SETS, PassageQuery, load_passage_set
from .passage_sets import passage_retriever as make_passage_retriever
from .providers import PreEmbeddedQueries
from .recorded import _keyed, digest

NO_MATCH_RECORDED = DATA_DIR / "no_match_answers.json.gz"
#: The family of a corpus's own no-match queries; generated ones keep theirs.
CORPUS_NO_MATCH = "no_match"


@dataclass(frozen=True)
class Asked:
    """One query's best score in each single-channel mode (`None`: that channel found nothing)."""

    side: str
    corpus: str
    query_id: str
    family: str
    split: str
    graded: bool
    semantic_top: float | None
    lexical_top: float | None


def generated_entity_queries() -> list[QualityQuery]:
    return [
        QualityQuery(id=q["id"], shape=q["shape"], split=q["split"], text=q["query"],
                     targets=frozenset())
        for q in load_no_match()
    ]  # fmt: skip


def generated_passage_queries() -> list[PassageQuery]:
    return [
        PassageQuery(id=q["id"], shape=q["shape"], split=q["split"], text=q["query"], grades={})
        for q in load_no_match()
    ]


Recording = dict[str, dict[str, list[list[Any]]]]


def _asked(
    side: str,
    corpus: str,
    q: QualityQuery | PassageQuery,
    semantic_top: float | None,
    lexical_top: float | None,
) -> Asked:
    return Asked(
        side=side,
        corpus=corpus,
        query_id=q.id,
        family=q.shape,
        split=q.split,
        graded=bool(q.targets),
        semantic_top=semantic_top,
        lexical_top=lexical_top,
    )


async def _entities(name: str, recording: Recording) -> list[Asked]:
    path = CONFIDENCE_CORPORA[name]
    corpus = load_entity_corpus(path)
    queries = corpus.queries + generated_entity_queries()
    provider = PreEmbeddedQueries(LocalEmbeddingProvider())
    vectors = await build_vectors(corpus, provider)
    await provider.prepare([q.text for q in queries])
    key_of = {entity.id: key for key, entity in _keyed(path, corpus.entities)}
    retriever = Retriever(embeddings=provider, vectors=vectors, graph=await build_graph(corpus))
    recorded = recording.setdefault(f"entities/{name}", {})
    rows = []
    for q in queries:
        sem = await retriever.retrieve(q.text, TENANT, k=DEPTH, mode=RetrievalMode.SEMANTIC)
        lex = await retriever.retrieve(q.text, TENANT, k=DEPTH, mode=RetrievalMode.LEXICAL)
        if q.split == "holdout" and not q.targets:
            recorded[q.id] = [
                [key_of[m.entity.id], round(m.semantic or 0.0, 6)] for m in sem.matches
            ]
        rows.append(
            _asked("entities", name, q, sem.matches[0].semantic if sem.matches else None,
                   lex.matches[0].lexical if lex.matches else None)
        )  # fmt: skip
    return rows


async def _passages(name: str, recording: Recording) -> list[Asked]:
    passages = load_passage_set(CONFIDENCE_SETS[name])
    queries = passages.queries + generated_passage_queries()
    provider = PreEmbeddedQueries(LocalEmbeddingProvider())
    await provider.prepare([q.text for q in queries])
    retriever = await make_passage_retriever(passages, provider)
    recorded = recording.setdefault(f"passages/{name}", {})
    rows = []
    for q in queries:
        sem, lex = [
            await retriever.retrieve_chunks(q.text, TENANT, k=CHUNK_DEPTH, mode=mode)
            for mode in (RetrievalMode.SEMANTIC, RetrievalMode.LEXICAL)
        ]
        if q.split == "holdout" and not q.targets:
            recorded[q.id] = [
                [m.chunk.source_id, m.chunk.index, round(m.semantic or 0.0, 6)] for m in sem.matches
            ]
        rows.append(
            _asked("passages", name, q, sem.matches[0].semantic if sem.matches else None,
                   lex.matches[0].bm25_coverage if lex.matches else None)
        )  # fmt: skip
    return rows


async def _collect() -> tuple[list[Asked], Recording]:
    recording: Recording = {}
    rows = []
    for name in CONFIDENCE_CORPORA:
        rows += await _entities(name, recording)
    for name in CONFIDENCE_SETS:
        rows += await _passages(name, recording)
    return rows, recording


def collect(cache: str | None = None) -> tuple[list[Asked], Recording]:
    """Every query's channel tops and the holdout no-match recording (kept under `cache`)."""
    path = Path(cache) / "no_match_asked.json" if cache else None
    if path is not None and path.exists():
        kept = json.loads(path.read_text(encoding="utf-8"))
        return [Asked(**row) for row in kept["rows"]], kept["recording"]
    rows, recording = asyncio.run(_collect())
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"rows": [asdict(r) for r in rows], "recording": recording}
        path.write_text(json.dumps(payload), encoding="utf-8")
    return rows, recording


def no_match_sources() -> dict[str, Path]:
    """Every file the no-match recording depends on, by name."""
    return {
        **{f"entities/{n}": p for n, p in CONFIDENCE_CORPORA.items()},
        **{f"passages/{n}": p for n, p in CONFIDENCE_SETS.items()},
        "no_match_queries": NO_MATCH_QUERIES,
    }


def record(recording: Recording, path: Path = NO_MATCH_RECORDED) -> None:
    """Write the holdout no-match semantic answers with the digests they depend on."""
    payload = {
        "model_sha256": MODEL_SHA256,
        "sources": {name: digest(p) for name, p in no_match_sources().items()},
        "answers": recording,
    }
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
