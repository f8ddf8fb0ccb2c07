"""Hold branch coverage at `.coverage-baseline`, reading the data the test run left.

The suite runs once, under coverage (`uv run pytest --cov`, the README's
command); this reads the `.coverage` file that run wrote. It fails (exit 1)
when there is no coverage data (no run, or a run that collected nothing) or
when total coverage falls below the baseline. `--update` writes the measured
figure as the new baseline (do that in the commit that explains why it moved).

    uv run pytest --cov && uv run python -m scripts.coverage_ratchet [--update]
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / ".coverage-baseline"
DATA = ROOT / ".coverage"
TOLERANCE = 0.05  # percentage points of rounding noise between runs


def main(argv: list[str]) -> int:
    update = "--update" in argv
    if not DATA.exists():
        print("coverage ratchet: no coverage data; run the suite first with `uv run pytest --cov`")
        return 1
    report = subprocess.run(
        [sys.executable, "-m", "coverage", "report", "--format=total", "--precision=2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if report.returncode != 0 or not report.stdout.strip():
        print(f"coverage ratchet: the coverage data could not be read: {report.stderr.strip()}")
        return 1
    measured = float(report.stdout.strip())
    baseline = float(BASELINE.read_text().strip()) if BASELINE.exists() else 0.0
    print(f"coverage ratchet: branch coverage {measured:.2f}% (baseline {baseline:.2f}%)")
    if update:
        BASELINE.write_text(f"{measured:.2f}\n")
        print(f"coverage ratchet: baseline set to {measured:.2f}%")
        return 0
    if measured + TOLERANCE < baseline:
        print(
            f"coverage ratchet: coverage fell below the baseline by {baseline - measured:.2f} "
            "points. Test the new code, or lower the baseline in a commit that says why."
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
