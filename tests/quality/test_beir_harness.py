"""The public-collection harness: BEIR's layout read as BEIR reads it, and its measures."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

from scripts.quality.beir import (
    expected_calibration_error,
    from_passage_set,
    judged,
    load_collection,
    ndcg10,
    paired_difference,
    prepare_nfcorpus_release,
    recall_at,
)
from scripts.quality.passage_sets import PASSAGE_SETS


def write_beir(folder: Path, *, qrels: str, gzipped: bool) -> None:
    (folder / "qrels").mkdir(parents=True)
    corpus = "\n".join(
        json.dumps({"_id": i, "title": f"title {i}", "text": f"text {i}"}) for i in ("d1", "d2")
    )
    queries = "\n".join(json.dumps({"_id": q, "text": f"ask {q}"}) for q in ("q1", "q2", "q3"))
    for name, text in (
        ("corpus.jsonl", corpus),
        ("queries.jsonl", queries),
        ("qrels/test.tsv", qrels),
    ):
        if gzipped:
            with gzip.open(folder / f"{name}.gz", "wt", encoding="utf-8") as handle:
                handle.write(text)
        else:
            (folder / name).write_text(text, encoding="utf-8")


@pytest.mark.parametrize("gzipped", [False, True])
def test_a_beir_folder_keeps_graded_test_queries_only(tmp_path: Path, gzipped: bool) -> None:
    # q2's only judgement is 0 (not relevant) and q3 has none: neither is a test query.
    write_beir(
        tmp_path,
        qrels="query-id\tcorpus-id\tscore\nq1\td2\t2\nq1\td1\t1\nq2\td1\t0\n",
        gzipped=gzipped,
    )
    collection = load_collection(tmp_path)
    assert collection.queries == {"q1": "ask q1"}
    assert collection.qrels == {"q1": {"d2": 2.0, "d1": 1.0}}
    assert collection.text_of("d1") == "title d1 text d1"


def test_trec_qrels_and_topics_are_read_too(tmp_path: Path) -> None:
    made = prepare_nfcorpus_release(
        [_write(tmp_path / "test.docs", "MED-1\tstatin breast cancer\nMED-2\tsoy milk\n")],
        _write(tmp_path / "topics.tsv", "PLAIN-1\tDo statins cause cancer?\nPLAIN-9\tunjudged\n"),
        _write(tmp_path / "qrels.txt", "PLAIN-1 0 MED-1 2\nPLAIN-1 0 MED-2 1\n"),
        tmp_path / "out",
    )
    assert made.queries == {"PLAIN-1": "Do statins cause cancer?"}
    assert made.qrels == {"PLAIN-1": {"MED-1": 2.0, "MED-2": 1.0}}
    assert made.text_of("MED-2") == "soy milk"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_the_measures_against_hand_computed_figures() -> None:
    grades = {"a": 2.0, "b": 1.0, "c": 1.0}
    # b at rank 1, a at rank 3: DCG = 1 + 2/2; ideal = 2 + 1/log2(3) + 1/2.
    assert ndcg10(["b", "x", "a"], grades) == pytest.approx(2 / (2 + 1 / math.log2(3) + 0.5))
    assert recall_at(["x", "a", "y", "c"], grades, k=3) == pytest.approx(1 / 3)
    # Bin [0.9, 1.0]: two results at 0.95, one relevant: |0.5 - 0.95| weighted 2/3;
    # bin [0.1, 0.2): one at 0.1, not relevant: |0 - 0.1| weighted 1/3.
    pairs = [(0.95, True), (0.95, False), (0.1, False)]
    assert expected_calibration_error(pairs) == pytest.approx(2 / 3 * 0.45 + 1 / 3 * 0.1)
    assert expected_calibration_error([(1.0, True)]) == 0.0


def test_a_committed_passage_set_reads_as_a_collection() -> None:
    collection = from_passage_set("python", PASSAGE_SETS["python"])
    assert len(collection.documents) == 284
    assert collection.queries
    assert set(collection.queries) == set(collection.qrels)
    assert all(grades for grades in collection.qrels.values())


def test_a_query_is_not_judged_on_its_own_document() -> None:
    assert judged("q1", ["q1", "d1", "d2", "d3"], depth=2) == ["d1", "d2"]
    assert judged("q9", ["d1", "d2"]) == ["d1", "d2"]


def test_a_paired_difference_is_the_mean_with_an_interval_around_it() -> None:
    # Every query 0.1 better: each resampling's mean is 0.1, so the interval is a point.
    assert paired_difference([0.6, 0.5, 0.4], [0.5, 0.4, 0.3]) == pytest.approx((0.1, 0.1, 0.1))
    # One query of 200 wins by 1.0: the mean is 0.005; the times a resampling
    # draws that query are about Poisson(1), so 37% draw it never (the interval
    # starts at 0) and fewer than 2.5% draw it more than 3 times (0.015).
    ours, theirs = [1.0] + [0.5] * 199, [0.0] + [0.5] * 199
    mean, low, high = paired_difference(ours, theirs)
    assert mean == pytest.approx(0.005)
    assert low == 0.0
    assert high == pytest.approx(0.015)
    # The same resamplings with the sides swapped: the figures negate.
    assert paired_difference(theirs, ours) == pytest.approx((-mean, -high, -low))


def test_a_paired_interval_is_about_the_normal_95_percent_one() -> None:
    # 400 differences: the bootstrap interval is close to mean +- 1.96 standard errors.
    differences = np.random.default_rng(7).normal(0.02, 0.2, 400)
    mean, low, high = paired_difference(list(differences), [0.0] * 400)
    standard_error = float(differences.std(ddof=1)) / 20
    assert mean == pytest.approx(float(differences.mean()))
    assert (high - low) / 2 == pytest.approx(1.96 * standard_error, rel=0.05)
    assert (low + high) / 2 == pytest.approx(mean, abs=0.1 * standard_error)


def test_a_paired_difference_needs_one_figure_per_query_each_side() -> None:
    with pytest.raises(ValueError, match="one figure per query"):
        paired_difference([0.5, 0.4], [0.5])
    with pytest.raises(ValueError, match="one figure per query"):
        paired_difference([], [])
