"""Run the test suite under branch coverage and hold the line at `.coverage-baseline`.

Fails (exit 1) when the suite fails, when it collected no tests, or when total
coverage falls below the baseline. `--update` writes the measured figure as the
new baseline (do that in the commit that explains why it moved).

    uv run python -m scripts.coverage_ratchet [--update] [pytest args...]
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / ".coverage-baseline"
TOLERANCE = 0.05  # percentage points of rounding noise between runs


def main(argv: list[str]) -> int:
    update = "--update" in argv
    pytest_args = [arg for arg in argv if arg != "--update"]
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "coverage",
            "run",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *pytest_args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    sys.stdout.write(run.stdout[-3000:])
    sys.stderr.write(run.stderr[-3000:])
    passed = _count(run.stdout, "passed")
    if run.returncode != 0:
        print(f"coverage ratchet: the suite failed (exit {run.returncode})")
        return 1
    if passed == 0:
        print("coverage ratchet: no test passed; refusing a run that collected nothing")
        return 1
    report = subprocess.run(
        [sys.executable, "-m", "coverage", "report", "--format=total", "--precision=2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    measured = float(report.stdout.strip())
    baseline = float(BASELINE.read_text().strip()) if BASELINE.exists() else 0.0
    print(
        f"coverage ratchet: {passed} passed, branch coverage {measured:.2f}% "
        f"(baseline {baseline:.2f}%)"
    )
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


def _count(output: str, word: str) -> int:
    match = re.search(rf"(\d+) {word}", output)
    return int(match.group(1)) if match else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
