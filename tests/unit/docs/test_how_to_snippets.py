"""The docs' Python: every block imports only the public surface, and the how-tos that
can run alone run as written and print what their text says.

A how-to block is either runnable (it makes its own stores, documents and
fake models) or a fragment that needs a server or variables the page sets up
in prose; each page with Python is named in one of the two sets, so a new page
is not silently left out. The getting-started page runs against the built
wheel instead (`tests/unit/packaging/test_getting_started.py`).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.unit.test_public_api import SURFACE

DOCS = Path(__file__).resolve().parents[3] / "docs"
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
IMPORT = re.compile(r"^(?:from|import) ([\w.]+)", re.MULTILINE)

RUNNABLE = {
    "build-a-graph.md",
    "index-documents.md",
    "rebuild-by-replay.md",
    "retrieve-chunks.md",
    "retrieve-entities.md",
}
FRAGMENTS = {
    "connect-a-model-server.md",  # a model server
    "embed-locally.md",  # top-level await
    "give-an-agent-entity-search.md",  # an agent framework and a model
    "use-postgres.md",  # a PostgreSQL server
    "use-sqlite.md",  # entities, chunks and events made elsewhere
}


@pytest.fixture(autouse=True)
def _in_an_empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A how-to writes its files (`docs.db`, ...) where a reader runs it: here, a new folder."""
    monkeypatch.chdir(tmp_path)


def blocks(page: Path) -> list[str]:
    return FENCE.findall(page.read_text(encoding="utf-8"))


def pages_with_python() -> list[Path]:
    return sorted(page for page in DOCS.rglob("*.md") if "adr" not in page.parts and blocks(page))


def test_every_how_to_with_python_is_run_or_named_a_fragment() -> None:
    how_tos = {page.name for page in pages_with_python() if page.parent.name == "how-to"}
    assert how_tos == RUNNABLE | FRAGMENTS
    assert not RUNNABLE & FRAGMENTS


@pytest.mark.parametrize("page", pages_with_python(), ids=lambda page: page.name)
def test_every_block_imports_redstring_only_through_the_public_surface(page: Path) -> None:
    for code in blocks(page):
        for module in IMPORT.findall(code):
            top = module.split(".")[0]
            if top == "redstring":
                assert module in SURFACE, module
            if page.name in RUNNABLE:
                assert module in SURFACE or top in sys.stdlib_module_names, module


def run(name: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    namespace: dict[str, object] = {"__name__": f"how_to_{name}"}
    for code in blocks(DOCS / "how-to" / name):
        exec(compile(code, name, "exec"), namespace)
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("name", sorted(RUNNABLE))
def test_the_runnable_how_tos_run_as_written(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(name, capsys)


def test_the_build_how_to_prints_what_its_comments_say(capsys: pytest.CaptureFixture[str]) -> None:
    lines = run("build-a-graph.md", capsys)
    assert lines[0] == "people_and_organisations 0.8"
    assert lines[1] == "3 2 []"


def test_the_retrieve_how_to_ranks_the_abbreviated_company_with_both_channels(
    capsys: pytest.CaptureFixture[str],
) -> None:
    [first, *_] = run("retrieve-entities.md", capsys)
    assert first.startswith("ACME Corporation")
    assert "semantic=" in first
    assert "lexical=" in first
