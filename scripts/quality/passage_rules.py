"""Passage fusion rules with few numbers, each chosen without the family it is graded on.

    nice -n 10 uv run python -m scripts.quality.passage_rules [--data DIR ...]

Every passage family (the graded passage sets' shapes, Lee, and each public
collection given with `--data`) gives each query's two chunk rankings with
their scores: the lexical one to `LEXICAL_DEPTH` (BM25, the real store) and
the semantic one as deep as it is known: the committed sets replay the
recorded local-model answers (50 chunks a query for the graded sets, every
chunk for Lee, as the floors do); a public collection reads its cached
MiniLM vectors (`scripts.bench_beir`) to `SEMANTIC_DEPTH`.
A rule either turns a query into channel weights `(semantic, lexical)` for
the weighted RRF of the two rankings, or orders the chunks itself (the
convex combinations of scores, `ConvexFusion` among them); chunks are
mapped to documents by each one's best chunk. For every left-out family a
rule's numbers are chosen on the fit half of every *other* family, by the
worst of them (the grid point whose worst family falls least below
`max(SEMANTIC, LEXICAL, RRF)` in nDCG@10, over the grades), and graded
on the left-out family's holdout half, which it never saw. A rule is judged
by its worst left-out family, never by its mean (ADR 0365's method, for
passages).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from redstring import SourceDocument, StoredChunk, index_documents
from redstring.domain.bm25 import LexicalCandidates, rank_chunks
from redstring.domain.confidence import bm25_ceiling, bm25_coverage
from redstring.domain.convex_fusion import ConvexFusion
from redstring.domain.fusion import RRF_K, FusionStrategy
from redstring.ports import EmbeddingProvider
from redstring.stores import InMemoryChunkStore
from scripts.bench_beir import embedded

from .beir import load_collection, paired_difference
from .common import split_of
from .fusion_rules import ConvexCombination
from .harness import NO_MATCH, TENANT, ndcg_at
from .passage_sets import PASSAGE_SETS, lee_documents, lee_grades, lee_query, load_passage_set
from .recorded import RecordedChunks, load_recording

#: Semantic chunks read per query of a public collection (the recording bounds the others).
SEMANTIC_DEPTH = 500
#: Lexical chunks kept per query: a chunk deeper adds at most 1 / (60 + 1001) to an RRF score.
LEXICAL_DEPTH = 1000
Params = tuple[float, ...]


@dataclass(frozen=True)
class Case:
    """One query of one family: both channels' chunk rankings and what grades them."""

    family: str
    split: str
    semantic: tuple[str, ...]
    lexical: tuple[str, ...]
    held: float  # the largest share of the query's IDF that one chunk holds
    coverage: float  # the lexical top's BM25 over the query's ceiling
    terms: int  # distinct analysed query terms
    document_of: dict[str, str]
    grades: dict[str, float]
    graded_by: str  # "hit" (hit@10 and MRR) or "ndcg" (nDCG@10)
    skip: str = ""  # a document never counted: the query's own (Lee, ArguAna)
    semantic_scores: tuple[float, ...] = ()  # the semantic ranking's, on the 0..1 match scale
    coverages: tuple[float, ...] = ()  # the lexical ranking's BM25 over the query's ceiling


def held_share(found: LexicalCandidates) -> float:
    """The largest share of the query's summed IDF whose terms one candidate holds (0..1)."""
    if len(found.chunk_ids) == 0:
        return 0.0
    weights = np.array(found.term_weights(), dtype=float)
    total = float(weights.sum())
    if total <= 0.0:
        return 0.0
    return float(((found.counts > 0) @ weights).max() / total)


Channels = tuple[
    tuple[str, ...], tuple[str, ...], float, float, int, tuple[float, ...], tuple[float, ...]
]


async def _channels(store: InMemoryChunkStore, provider: EmbeddingProvider, text: str) -> Channels:
    [vector] = await provider.embed_query([text])
    semantic = await store.semantic_ranking(vector, TENANT, k=SEMANTIC_DEPTH)
    scores = tuple(score for _, score in semantic)
    terms = store.analyzer.terms(text)
    if not terms:
        return tuple(str(c) for c, _ in semantic), (), 0.0, 0.0, 0, scores, ()
    found = (await store.lexical_candidates(terms, TENANT)).asked_by(terms)
    lexical = rank_chunks(found, k=max(1, min(LEXICAL_DEPTH, len(found.chunk_ids))))
    ceiling = bm25_ceiling(found)
    return (
        tuple(str(c) for c, _ in semantic),
        tuple(str(c) for c, _ in lexical),
        held_share(found),
        bm25_coverage(lexical[0][1], ceiling) if lexical else 0.0,
        len(found.terms),
        scores,
        tuple(bm25_coverage(score, ceiling) for _, score in lexical),
    )


async def _recorded_store(
    documents: Sequence[SourceDocument],
    answers: dict[str, list[list[object]]],
    texts: dict[str, str],
) -> tuple[RecordedChunks, dict[str, str]]:
    places = {
        texts[qid]: [(str(s), int(str(i)), float(str(v))) for s, i, v in answers[qid]]
        for qid in texts
    }
    store = RecordedChunks(places)
    await index_documents(documents, chunks=store, tenant_id=TENANT)
    chunks = await store.list_chunks(TENANT)
    return store, {str(c.id): c.source_id for c in chunks}


async def committed_cases() -> list[Case]:
    """Every graded query of the committed passage sets and every Lee document."""
    answers = load_recording()["answers"]
    cases: list[Case] = []
    for name, path in PASSAGE_SETS.items():
        passages = load_passage_set(path)
        queries = [q for q in passages.queries if q.targets and q.shape != NO_MATCH]
        store, document_of = await _recorded_store(
            passages.documents, answers[f"passages/{name}"], {q.id: q.text for q in queries}
        )
        for q in queries:
            semantic, lexical, held, coverage, terms, cos, cov = await _channels(
                store, store, q.text
            )
            cases.append(
                Case(
                    f"{name}/{q.shape}",
                    q.split,
                    semantic,
                    lexical,
                    held,
                    coverage,
                    terms,
                    document_of,
                    q.grades,
                    "ndcg",
                    semantic_scores=cos,
                    coverages=cov,
                )
            )
    documents = lee_documents()
    store, document_of = await _recorded_store(
        documents, answers["passages/lee"], {d.id: lee_query(d) for d in documents}
    )
    for d in documents:
        semantic, lexical, held, coverage, terms, cos, cov = await _channels(
            store, store, lee_query(d)
        )
        cases.append(
            Case(
                "lee/first_sentence",
                split_of(d.id),
                semantic,
                lexical,
                held,
                coverage,
                terms,
                document_of,
                lee_grades(d.id),
                "ndcg",
                skip=d.id,
                semantic_scores=cos,
                coverages=cov,
            )
        )
    return cases


async def collection_cases(folder: Path) -> list[Case]:
    """Every test query of a public collection (one passage per document, cached vectors)."""
    collection = load_collection(folder)
    vectors = embedded(collection)
    store = InMemoryChunkStore(dimension=vectors.dimension)
    chunks = [
        StoredChunk(
            tenant_id=TENANT,
            source_id=doc_id,
            text=(text := collection.text_of(doc_id)),
            index=0,
            start=0,
            end=len(text),
            embedding=vectors.vector(text),
            embedding_model=vectors.model,
        )
        for doc_id in collection.documents
    ]
    for start in range(0, len(chunks), 1000):
        await store.upsert_chunks(chunks[start : start + 1000])
    document_of = {str(c.id): c.source_id for c in chunks}
    cases = []
    for qid, text in collection.queries.items():
        semantic, lexical, held, coverage, terms, cos, cov = await _channels(store, vectors, text)
        cases.append(
            Case(
                collection.name,
                split_of(qid),
                semantic,
                lexical,
                held,
                coverage,
                terms,
                document_of,
                collection.qrels[qid],
                "ndcg",
                skip=qid,  # ArguAna's queries are documents of its corpus; BEIR drops them
                semantic_scores=cos,
                coverages=cov,
            )
        )
    return cases


Weights = Callable[[Case, Params], tuple[float, float]]


@dataclass(frozen=True)
class Rule:
    name: str
    weights: Weights
    grid: tuple[Params, ...] = ((),)
    order: Callable[[Case, Params], list[str]] | None = None  # replaces the weighted RRF

    @property
    def numbers(self) -> int:
        return len(self.grid[0])


def fused_documents(case: Case, semantic_weight: float, lexical_weight: float) -> list[str]:
    """Documents by the weighted RRF of the chunk rankings, each at its best chunk."""
    scores: dict[str, float] = {}
    for weight, ranking in ((semantic_weight, case.semantic), (lexical_weight, case.lexical)):
        if weight == 0.0:
            continue
        for rank, chunk in enumerate(ranking, start=1):
            scores[chunk] = scores.get(chunk, 0.0) + weight / (RRF_K + rank)
    ordered = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
    return order_documents(case, [chunk for chunk, _ in ordered])


def strategy_documents(case: Case, fusion: FusionStrategy) -> list[str]:
    """Documents by `fusion` of the two chunk rankings (semantic scores on the 0..1 match
    scale, lexical ones the BM25 coverage), each at its best chunk."""
    fused = fusion.fuse(
        list(zip(case.semantic, case.semantic_scores, strict=True)),
        list(zip(case.lexical, case.coverages, strict=True)),
        query="",
    )
    return order_documents(case, [chunk for chunk, _ in fused])


def order_documents(case: Case, chunks: Sequence[str]) -> list[str]:
    """The first 10 documents of `chunks` (each at its best chunk), the query's own left out."""
    seen: dict[str, None] = {}
    for chunk in chunks:
        document = case.document_of[chunk]
        if document != case.skip:
            seen.setdefault(document, None)
        if len(seen) >= 10:
            break
    return list(seen)


def figures(case: Case, ranked: Sequence[str]) -> dict[str, float]:
    if case.graded_by == "ndcg":
        return {"ndcg@10": ndcg_at(list(ranked), case.grades)}
    places = [i for i, d in enumerate(ranked[:10], start=1) if d in case.grades]
    return {"hit@10": float(bool(places)), "mrr": 1.0 / places[0] if places else 0.0}


def family_figures(cases: Sequence[Case], order: Callable[[Case], list[str]]) -> dict[str, float]:
    rows = [figures(case, order(case)) for case in cases]
    return {metric: statistics.fmean(r[metric] for r in rows) for metric in rows[0]}


def _agrees(case: Case, n: int) -> bool:
    return bool(case.lexical) and case.lexical[0] in case.semantic[:n]


def rules() -> list[Rule]:
    powers = tuple((p,) for p in (0.5, 1.0, 2.0, 3.0, 4.0, 6.0))
    alphas = tuple((a,) for a in np.round(np.linspace(0.0, 1.0, 21), 2))
    return [
        Rule("RRF", lambda c, p: (1.0, 1.0)),
        Rule(
            "lexical weight w",
            lambda c, p: (1.0, p[0]),
            tuple((w,) for w in np.round(np.linspace(0.0, 1.0, 21), 2)),
        ),
        Rule("lexical weight = held share", lambda c, p: (1.0, c.held)),
        Rule("lexical weight = held share ** p", lambda c, p: (1.0, c.held ** p[0]), powers),
        Rule(
            "lexical weight 1 if held share >= t else w",
            lambda c, p: (1.0, 1.0 if c.held >= p[0] else p[1]),
            tuple((t, w) for t in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0) for w in (0.0, 0.25, 0.5, 0.75)),
        ),
        Rule(
            "lexical weight = (coverage / c) ** p, at most 1",
            lambda c, p: (1.0, min(1.0, c.coverage / p[0]) ** p[1]),
            tuple((cc, pp) for cc in (0.2, 0.3, 0.4, 0.5, 0.6) for pp in (0.5, 1.0, 2.0, 4.0)),
        ),
        Rule(
            "lexical weight 1 if the lexical first is in the semantic first n, else w",
            lambda c, p: (1.0, 1.0 if _agrees(c, int(p[0])) else p[1]),
            tuple((n, w) for n in (1, 3, 10, 30, 100) for w in (0.0, 0.25, 0.5, 0.75)),
        ),
        Rule(
            "convex on the stated scales (TM2C2): (1 - w) * semantic + w * BM25 coverage",
            lambda c, p: (1.0, 1.0),
            alphas,
            order=lambda c, p: strategy_documents(c, ConvexCombination(weight=p[0])),
        ),
        Rule(
            "`ConvexFusion`: a * semantic stretched to the Nth + (1 - a) * BM25 coverage",
            lambda c, p: (1.0, 1.0),
            tuple((n, a) for n in (10, 20, 30, 50) for (a,) in alphas),
            order=lambda c, p: strategy_documents(
                c, ConvexFusion(semantic_weight=p[1], depth=int(p[0]))
            ),
        ),
        Rule(
            "lexical weight 1 up to n query terms, else w",
            lambda c, p: (1.0, 1.0 if c.terms <= p[0] else p[1]),
            tuple((n, w) for n in (1, 2, 3, 4, 5, 6, 8) for w in (0.0, 0.25, 0.5, 0.75)),
        ),
    ]


Table = dict[str, dict[Params, dict[str, float]]]  # family -> params -> metric -> value


def grade(cases: Sequence[Case], rule: Rule, split: str) -> Table:
    by_family: dict[str, list[Case]] = {}
    for case in cases:
        if case.split == split:
            by_family.setdefault(case.family, []).append(case)
    return {
        family: {
            params: family_figures(
                members,
                (lambda c, p=params: fused_documents(c, *rule.weights(c, p)))
                if rule.order is None
                else (lambda c, p=params, o=rule.order: o(c, p)),
            )
            for params in rule.grid
        }
        for family, members in by_family.items()
    }


def bars(cases: Sequence[Case], split: str) -> dict[str, dict[str, float]]:
    """Per family: max(SEMANTIC, LEXICAL, RRF) per metric."""
    out: dict[str, dict[str, float]] = {}
    for weights in ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0)):
        table = grade(cases, Rule("", lambda c, p, w=weights: w), split)
        for family, row in table.items():
            for metric, value in row[()].items():
                out.setdefault(family, {})
                out[family][metric] = max(out[family].get(metric, -1.0), value)
    return out


def shortfall(row: dict[str, float], bar: dict[str, float]) -> float:
    return min(row[m] - bar[m] for m in bar)


@dataclass(frozen=True)
class Graded:
    rule: str
    numbers: int
    left_out: dict[str, tuple[Params, float]]  # family -> (chosen, shortfall on its holdout)

    @property
    def worst(self) -> tuple[str, float]:
        family = min(self.left_out, key=lambda f: self.left_out[f][1])
        return family, self.left_out[family][1]


def leave_one_out(cases: Sequence[Case], rule: Rule) -> Graded:
    fit, held = grade(cases, rule, "fit"), grade(cases, rule, "holdout")
    fit_bar, held_bar = bars(cases, "fit"), bars(cases, "holdout")
    out = {}
    for family in held:
        others = [f for f in fit if f != family]

        def key(params: Params, others: list[str] = others) -> tuple[float, float]:
            worst = min(shortfall(fit[f][params], fit_bar[f]) for f in others)
            mean = statistics.fmean(min(fit[f][params].values()) for f in others)
            return worst, mean

        chosen = max(rule.grid, key=key)
        out[family] = (chosen, shortfall(held[family][chosen], held_bar[family]))
    return Graded(rule.name, rule.numbers, out)


def default_intervals(cases: Sequence[Case]) -> list[str]:
    """Per holdout family and metric: the default `ConvexFusion` minus SEMANTIC and minus
    LEXICAL, each with its paired 95% bootstrap interval over the family's queries."""
    lines = []
    for family in sorted({c.family for c in cases}):
        held = [c for c in cases if c.family == family and c.split == "holdout"]
        ours = [figures(c, strategy_documents(c, ConvexFusion())) for c in held]
        for name, chunks in (("SEMANTIC", "semantic"), ("LEXICAL", "lexical")):
            theirs = [figures(c, order_documents(c, getattr(c, chunks))) for c in held]
            for metric in ours[0]:
                mean, low, high = paired_difference(
                    [o[metric] for o in ours], [t[metric] for t in theirs]
                )
                lines.append(
                    f"{family} {metric} minus {name}: {mean:+.3f} [{low:+.3f}, {high:+.3f}]"
                    f" over {len(held)} queries"
                )
    return lines


def main(graded: Callable[[], list[Rule]] = rules, description: str = __doc__) -> None:
    """Grade each of `graded()` left out on the committed families and `--data`'s."""
    parser = argparse.ArgumentParser(description=description.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--data", nargs="*", type=Path, default=[], help="BEIR-layout folders")
    args = parser.parse_args()
    cases = asyncio.run(committed_cases())
    for folder in args.data:
        cases += asyncio.run(collection_cases(folder))
    families = sorted({c.family for c in cases})
    print(f"{len(cases)} queries in {len(families)} families: {', '.join(families)}\n")
    print("| rule | fitted numbers | worst left-out family | shortfall | families below -0.01 |")
    print("| --- | --- | --- | --- | --- |")
    details = []
    for rule in graded():
        result = leave_one_out(cases, rule)
        family, worst = result.worst
        below = sum(1 for _, s in result.left_out.values() if s < -0.01)
        print(
            f"| {rule.name} | {rule.numbers} | {family} | {worst:+.3f} "
            f"| {below} of {len(result.left_out)} |"
        )
        details.append(result)
    print("\nPer left-out family (holdout; the bar is max(SEMANTIC, LEXICAL, RRF)):\n")
    for result in details:
        print(f"{result.rule}:")
        for family, (params, value) in sorted(result.left_out.items()):
            print(f"  {family}: chosen {params} shortfall {value:+.3f}")
    for split in ("fit", "holdout"):
        print(f"\n{split}: SEMANTIC / LEXICAL / RRF per family")
        for weights in ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0)):
            table = grade(cases, Rule("", lambda c, p, w=weights: w), split)
            cells = [
                f"{f} " + " ".join(f"{m} {v:.3f}" for m, v in row[()].items())
                for f, row in sorted(table.items())
            ]
            print(f"  {weights}: " + "; ".join(cells))
    print("\nThe default against each channel, holdout (paired 95% bootstrap interval):")
    for line in default_intervals(cases):
        print(f"  {line}")
    for label, value in (
        ("held share", lambda c: c.held),
        ("coverage", lambda c: c.coverage),
        ("terms", lambda c: c.terms),
    ):
        medians = [
            f"{f} {statistics.median(value(c) for c in cases if c.family == f):.2f}"
            for f in families
        ]
        print(f"{label} per family (median): " + ", ".join(medians))


if __name__ == "__main__":
    main()
