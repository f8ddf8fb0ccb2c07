"""The map from channel evidence to "chance this result is right", fitted and judged by family.

`first_rows` replays the recorded semantic answers through the real
retrievers in HYBRID and keeps, per query, the first result's channel scores
and whether it is an acceptable answer: every graded query of both halves,
and the holdout's recorded no-match queries as one more family (`no_match`,
never fitted: no answer there is right). A form (`FORMS`) reads a row as a
few signals of the committed per-channel maps (`z`, the surer channel's
logit; `agreement`, 1 when both channels ranked the result; `lead`, how far
`z` stands above the strongest other candidate's) and a logistic
of them is fitted on the fit half (`fit`). `leave_one_out` fits without each
family in turn and states the ECE on that family's holdout half; a form is
chosen by its worst left-out family.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from redstring import RetrievalMode, Retriever
from redstring.domain.confidence import (
    ENTITY_CONFIDENCE,
    PASSAGE_CONFIDENCE,
    ConfidenceCalibration,
)

from .calibration import calibration
from .harness import (
    CONFIDENCE_CORPORA,
    ENTITY_CORPORA,
    TENANT,
    build_graph,
    load_entity_corpus,
)
from .no_match_answers import (
    NO_MATCH_RECORDED,
    generated_entity_queries,
    generated_passage_queries,
)
from .passage_sets import CHUNK_DEPTH, CONFIDENCE_SETS, PASSAGE_SETS, load_passage_set
from .recorded import load_recording, recorded_chunk_retriever, recorded_semantic

#: The family every no-match query is judged under.
NO_MATCH = "no_match"
#: The L2 price on the weights of a fit (not on the intercept).
WEIGHT_PRICE = 1e-4
#: How many results an entity query is asked for: every candidate, so the first's rival
#: is among them.
CANDIDATES = 1000


@dataclass(frozen=True)
class First:
    """One query's first HYBRID result: its channel scores and whether it is right."""

    side: str
    family: str
    split: str
    semantic: float | None
    lexical: float | None
    right: bool
    #: The strongest evidence among the answer's other candidates (`None`: none).
    rival: float | None = None


def first_rows() -> list[First]:
    """Every graded query's first result (both halves) and the holdout no-match ones."""
    graded = load_recording()["answers"]
    no_match = json.loads(gzip.decompress(NO_MATCH_RECORDED.read_bytes()))["answers"]
    return asyncio.run(_first_rows(graded, no_match))


async def _first_rows(graded: dict[str, Any], no_match: dict[str, Any]) -> list[First]:
    rows: list[First] = []
    for name, path in ENTITY_CORPORA.items():
        corpus = load_entity_corpus(path)
        queries = [q for q in corpus.queries if q.targets]
        answers = dict(graded[f"entities/{name}"])
        if name in CONFIDENCE_CORPORA:
            queries += [q for q in generated_entity_queries() if q.split == "holdout"]
            answers |= no_match[f"entities/{name}"]
        semantic = recorded_semantic(name, corpus, {f"entities/{name}": answers}, queries)
        retriever = Retriever(
            embeddings=semantic, vectors=semantic, graph=await build_graph(corpus)
        )
        for q in queries:
            result = await retriever.retrieve(
                q.text, TENANT, k=CANDIDATES, mode=RetrievalMode.HYBRID
            )
            others = [(m.semantic, m.lexical) for m in result.matches[1:]]
            for m in result.matches[:1]:
                family = f"{name}/{q.shape}" if q.targets else NO_MATCH
                rows.append(
                    First("entities", family, q.split, m.semantic, m.lexical,
                          m.entity.id in q.targets, _strongest(ENTITY_CONFIDENCE, others))
                )  # fmt: skip
    for name, path in PASSAGE_SETS.items():
        passages = load_passage_set(path)
        texts = {q.id: q.text for q in passages.queries if q.targets}
        answers = dict(graded[f"passages/{name}"])
        if name in CONFIDENCE_SETS:
            texts |= {q.id: q.text for q in generated_passage_queries() if q.split == "holdout"}
            answers |= no_match[f"passages/{name}"]
        targets = {q.id: q.targets for q in passages.queries}
        retriever_p = await recorded_chunk_retriever(passages.documents, answers, texts)
        shapes = {q.id: q.shape for q in passages.queries + generated_passage_queries()}
        splits = {q.id: q.split for q in passages.queries + generated_passage_queries()}
        for qid, text in texts.items():
            found = await retriever_p.retrieve_chunks(
                text, TENANT, k=CHUNK_DEPTH, mode=RetrievalMode.HYBRID
            )
            wanted = targets.get(qid, frozenset())
            others = [(c.semantic, c.bm25_coverage) for c in found.matches[1:]]
            for c in found.matches[:1]:
                family = f"{name}/{shapes[qid]}" if wanted else NO_MATCH
                rows.append(
                    First("passages", family, splits[qid], c.semantic, c.bm25_coverage,
                          c.chunk.source_id in wanted, _strongest(PASSAGE_CONFIDENCE, others))
                )  # fmt: skip
    return rows


def _strongest(
    base: ConfidenceCalibration, others: Sequence[tuple[float | None, float | None]]
) -> float | None:
    """The strongest evidence among `others` (`(semantic, lexical)` scores), `None` if none."""
    return max((base.evidence(semantic=s, lexical=x) for s, x in others), default=None)


Signals = Callable[[First, ConfidenceCalibration], list[float]]


def _z(row: First, base: ConfidenceCalibration) -> float:
    return base.evidence(semantic=row.semantic, lexical=row.lexical)


def _agreement(row: First) -> float:
    return float(row.semantic is not None and row.lexical is not None)


def _lead(row: First, base: ConfidenceCalibration) -> float:
    """How far the first result's evidence stands above its strongest rival's, or above
    the evidence of both channels scoring 0 when no rival is stronger."""
    floor = base.evidence(semantic=0.0, lexical=0.0)
    return _z(row, base) - (floor if row.rival is None else max(floor, row.rival))


#: The forms tried: the signals a logistic reads (its fitted numbers: one each, and an intercept).
FORMS: dict[str, Signals] = {
    "z": lambda row, base: [_z(row, base)],
    "z+agreement": lambda row, base: [_z(row, base), _agreement(row)],
    "z+lead": lambda row, base: [_z(row, base), _lead(row, base)],
}


def fit_logistic(signals: Sequence[Sequence[float]], right: Sequence[bool]) -> list[float]:
    """`[intercept, weight...]` of the logistic regression of `right` on `signals` (Newton)."""
    x = np.column_stack([np.ones(len(signals)), np.asarray(signals, dtype=float)])
    y = np.asarray(right, dtype=float)
    theta = np.zeros(x.shape[1])
    price = np.full(x.shape[1], WEIGHT_PRICE)
    price[0] = 1e-12
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(x @ theta)))
        gradient = x.T @ (p - y) / len(y) + price * theta
        hessian = (x * (p * (1 - p))[:, None]).T @ x / len(y) + np.diag(price)
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return [float(t) for t in theta]


def predict(theta: Sequence[float], signals: Sequence[float]) -> float:
    """The fitted logistic's chance at `signals`."""
    z = theta[0] + sum(w * s for w, s in zip(theta[1:], signals, strict=True))
    return 0.5 * (1.0 + math.tanh(0.5 * z))


def fit(rows: Sequence[First], side: str, form: str, base: ConfidenceCalibration) -> list[float]:
    """The form's numbers from `side`'s fit-half rows (no-match rows are never fitted)."""
    kept = [r for r in rows if r.side == side and r.split == "fit" and r.family != NO_MATCH]
    return fit_logistic([FORMS[form](r, base) for r in kept], [r.right for r in kept])


def leave_one_out(
    rows: Sequence[First],
    side: str,
    form: str,
    base: ConfidenceCalibration,
    before: ConfidenceCalibration,
) -> dict[str, tuple[int, float, float]]:
    """Per family: `(holdout queries, ECE of before, ECE of the form fitted without it)`."""
    families = sorted({r.family for r in rows if r.side == side})
    out = {}
    for family in families:
        theta = fit([r for r in rows if r.family != family], side, form, base)
        held = [r for r in rows if r.side == side and r.split == "holdout" and r.family == family]
        before_pairs = [(before.confidence(semantic=r.semantic, lexical=r.lexical), r.right)
                  for r in held]  # fmt: skip
        after = [(predict(theta, FORMS[form](r, base)), r.right) for r in held]
        out[family] = (len(held), calibration(before_pairs).ece, calibration(after).ece)
    return out


def reliability(pairs: Sequence[tuple[float, bool]], bins: int = 5) -> str:
    """Markdown rows: per equal-width confidence bin, queries, mean confidence, share right."""
    lines = [
        "| confidence | queries | mean confidence | share right |",
        "| --- | --- | --- | --- |",
    ]
    for b in range(bins):
        group = [(c, r) for c, r in pairs if min(int(c * bins), bins - 1) == b]
        if group:
            mean = sum(c for c, _ in group) / len(group)
            share = sum(r for _, r in group) / len(group)
            lines.append(f"| {b / bins:.1f}-{(b + 1) / bins:.1f} | {len(group)} | {mean:.3f} "
                         f"| {share:.3f} |")  # fmt: skip
    return "\n".join(lines)
