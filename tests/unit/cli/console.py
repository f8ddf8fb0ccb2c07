"""Running the real console script in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

from redstring.cli.main import main
from tests.hang_guard import HANG_GUARD_SECONDS

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "src" / "redstring" / "sample_docs"
#: The columns `redstring search` prints, in order.
ENTITY_COLUMNS = ["#", "confidence", "fused", "semantic", "lexical", "type", "name", "id"]


@dataclass(frozen=True)
class Ran:
    status: int
    out: str
    err: str


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any REDSTRING_* or OPENAI_* setting, plus `extra`."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("REDSTRING_", "OPENAI_"))
    }
    env.update(extra)
    return env


def redstring(*argv: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> Ran:
    """`python -m redstring.cli ARGV...` (what the `redstring` script runs), to completion."""
    done = subprocess.run(
        [sys.executable, "-m", "redstring.cli", *argv],
        cwd=cwd,
        env=env if env is not None else clean_env(),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def in_process(*argv: str, env: dict[str, str]) -> Ran:
    """`redstring ARGV...` run by `main` in this process, with `env` as its whole environment."""
    out, err = StringIO(), StringIO()
    status = main(list(argv), env=env, stdout=out, stderr=err)
    return Ran(status, out.getvalue(), err.getvalue())


def assert_one_error_line(ran: Ran, *, status: int = 1) -> str:
    """The single stderr line of a failed run, after checking it is one line and no traceback."""
    assert ran.status == status, ran
    assert ran.out == ""
    assert "Traceback" not in ran.err
    lines = ran.err.splitlines()
    assert len(lines) == 1, ran.err
    return lines[0]
