"""The end-to-end example runs, using only the public surface (the how-tos: tests/unit/docs)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hang_guard import HANG_GUARD_SECONDS
from tests.unit.test_public_api import SURFACE

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "end_to_end.py"


def foreign_imports(source: str) -> list[str]:
    """Imports of anything but the public surface (root and namespaces) and the standard library."""
    foreign: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [("." * node.level) + (node.module or "")]
        else:
            continue
        for module in modules:
            stdlib = module.split(".")[0] in sys.stdlib_module_names
            if module not in SURFACE and not stdlib:
                foreign.append(module)
    return foreign


def run(path: Path, tmpdir: Path | None = None) -> str:
    env = dict(os.environ) if tmpdir is None else {**os.environ, "TMPDIR": str(tmpdir)}
    done = subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=HANG_GUARD_SECONDS,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def blocks(output: str) -> dict[str, list[str]]:
    """Each `query ..., mode ...` header with the ranked lines under it."""
    found: dict[str, list[str]] = {}
    header = ""
    for line in output.splitlines():
        if line.startswith("query "):
            header = line
            found[header] = []
        elif header and line.strip():
            found[header].append(line.strip())
    return found


def test_the_import_check_sees_an_internal_import() -> None:
    source = "import asyncio\nfrom redstring import Entity\nfrom redstring.domain import x\n"
    assert foreign_imports(source) == ["redstring.domain"]
    assert foreign_imports("from redstring.stores import open_sqlite\n") == []
    assert foreign_imports("import numpy\nfrom . import y\n") == ["numpy", "."]


def test_the_example_imports_nothing_but_redstring() -> None:
    assert foreign_imports(EXAMPLE.read_text()) == []


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The example's output, run once with its own TMPDIR, and that folder."""
    tmpdir = tmp_path_factory.mktemp("example-tmpdir")
    return run(EXAMPLE, tmpdir), tmpdir


@pytest.fixture(scope="module")
def example_output(example_run: tuple[str, Path]) -> str:
    return example_run[0]


def test_the_example_leaves_no_temporary_folder_behind(example_run: tuple[str, Path]) -> None:
    output, tmpdir = example_run
    assert "redstring-example-" in output.splitlines()[0]  # it did write under TMPDIR
    assert list(tmpdir.glob("redstring-example-*")) == []


def test_the_example_builds_a_graph_on_sqlite_and_merges_the_misspelt_duplicate(
    example_output: str,
) -> None:
    first = example_output.splitlines()[0]
    assert re.match(r"built .*redstring\.db: 7 entities, 3 relationships, 1 merge\(s\)", first), (
        first
    )


def test_the_example_ranks_the_abbreviated_company_first_in_every_mode(example_output: str) -> None:
    output = blocks(example_output)
    for mode in ("hybrid", "semantic", "lexical"):
        assert output[f"query 'Acme Corp', mode {mode}"][0].startswith("1. ACME Corporation"), mode
    top = output["query 'Acme Corp', mode hybrid"][0]
    assert re.search(r"fused \d\.\d{4}  semantic \d\.\d{3}  lexical \d\.\d{3}$", top), top


def test_the_example_finds_a_surname_lexically_and_semantically_and_a_paraphrase(
    example_output: str,
) -> None:
    output = blocks(example_output)
    assert output["query 'Lovelace', mode lexical"][0].startswith("1. Ada Lovelace")
    assert output["query 'Lovelace', mode hybrid"][0].startswith("1. Ada Lovelace")
    assert output["query 'Lovelace', mode semantic"][0].startswith("1. Ada Lovelace")
    paraphrase = output["query 'who designed a mechanical computer', mode semantic"]
    assert paraphrase[0].startswith("1. Charles Babbage")


def test_the_example_ranks_passages_with_both_component_scores(example_output: str) -> None:
    lines = example_output.splitlines()
    at = lines.index("passages for 'mechanical general-purpose computer'")
    assert lines[at + 1].strip().startswith("1. [babbage.md]")
    assert re.search(r"semantic \d\.\d{3}  lexical \d\.\d{3}$", lines[at + 1]), lines[at + 1]


def test_the_example_counts_the_passages_its_build_wrote(example_output: str) -> None:
    [line] = [line for line in example_output.splitlines() if line.startswith("passages: ")]
    written = re.match(r"passages: (\d+) written by the build, (\d+) documents unchanged", line)
    assert written is not None, line
    assert int(written.group(1)) >= int(written.group(2)) > 0, line
