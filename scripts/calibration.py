"""How well `confidence` reads as the chance that the first result is right (holdout half).

    uv run python -m scripts.calibration                # HYBRID, every family
    uv run python -m scripts.calibration --mode lexical

Replays the recorded semantic answers (no model needed) through the real
retrievers and prints, per family of the entity corpora and passage sets,
the expected calibration error of the first result's confidence beside its
mean and the share of first results that are right. The machinery is
`quality.calibration`.
"""

from __future__ import annotations

import argparse

from redstring import RetrievalMode
from scripts.quality.calibration import calibration_table, first_results

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=[m.value for m in RetrievalMode], default="hybrid")
    args = parser.parse_args()
    print(calibration_table(first_results(RetrievalMode(args.mode))))
