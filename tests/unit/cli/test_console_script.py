"""The installed `redstring` command, run in a subprocess: flags, errors, and SQLite files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.cli.console import assert_one_error_line, redstring


def test_the_console_script_is_installed_and_answers_help() -> None:
    script = Path(sys.executable).parent / "redstring"
    done = subprocess.run(
        [str(script), "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0
    for command in ("index", "build", "search", "passages", "stats", "mcp"):
        assert command in done.stdout


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["search"], "the following arguments are required: --db, query"),
        (["search", "Ada", "--db", "x.db", "-k", "-1"], "argument -k: must be a whole number >= 0"),
        (["search", "Ada", "--db", "x.db", "-k", "ten"], "argument -k: must be a whole number"),
        (["search", "Ada", "--db", "x.db", "--mode", "fuzzy"], "argument --mode: invalid choice"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["stats", "--db", "x.db", "--embeddings", "local"], "unrecognized arguments"),
    ],
)
def test_bad_flags_are_one_usage_line_and_status_2(argv: list[str], says: str) -> None:
    line = assert_one_error_line(redstring(*argv), status=2)
    assert line.startswith("redstring")
    assert "usage error: " in line
    assert says in line


def test_a_read_on_a_missing_database_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "nothing-here.db"
    for argv in (
        ["search", "Ada Lovelace", "--db", str(db), "--embeddings", "none"],
        ["passages", "Ada Lovelace", "--db", str(db), "--embeddings", "none"],
        ["stats", "--db", str(db)],
    ):
        line = assert_one_error_line(redstring(*argv))
        assert line == (
            f"redstring: error: no database at {db}. Check --db, or create one first with "
            f"`redstring index PATH... --db {db}` or `redstring build PATH... --db {db}`."
        )
    assert not db.exists()


@pytest.mark.parametrize("query", ["", "   "])
def test_a_blank_query_is_one_line(query: str, tmp_path: Path) -> None:
    line = assert_one_error_line(
        redstring("search", query, "--db", str(tmp_path / "x.db"), "--embeddings", "none")
    )
    assert line.startswith("redstring: error: query must not be blank")
