"""The per-family table of docs/benchmarks.md flags exactly the families issue 13 counts as lost."""

from __future__ import annotations

from scripts.quality.floors import floors_table


def test_the_table_names_each_metric_where_hybrid_is_more_than_the_margin_below() -> None:
    report = {
        "w/loses": {
            "lexical": {"hit@10": 0.50, "mrr": 0.40},
            "semantic": {"hit@10": 0.30, "mrr": 0.20},
            "hybrid": {"hit@10": 0.48, "mrr": 0.395},
        },
        "w/holds": {
            "lexical": {"hit@10": 0.20, "mrr": 0.10},
            "semantic": {"hit@10": 0.70, "mrr": 0.54},
            "hybrid": {"hit@10": 0.70, "mrr": 0.531},
        },
        "lee/x": {
            "lexical": {"ndcg@10": 0.70},
            "semantic": {"ndcg@10": 0.85},
            "hybrid": {"ndcg@10": 0.80},
        },
    }
    rows = {line.split(" | ")[0].lstrip("| "): line for line in floors_table(report).splitlines()}
    assert rows["w/loses"].endswith("| hit@10 -0.020 |")  # MRR -0.005 is within the margin
    assert rows["w/holds"].endswith("| no |")  # -0.009: within
    assert rows["lee/x"].endswith("| ndcg@10 -0.050 |")
    assert "| 0.480 | 0.395 |" in rows["w/loses"]
