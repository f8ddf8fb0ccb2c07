"""The users' Python: every block of the README and the docs (not the decision records)
imports only the public surface, compiles, names nothing it does not define, and runs
as written, in a new folder, printing what its text says.

A block that cannot run here says why on the line before its fence, as an HTML
comment the rendered page does not show: `<!-- needs: an OpenAI key ... -->`.
Such a block is still compiled and checked for undefined names. The PostgreSQL
pages run against the test suite's server: their URL is replaced by its.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.test_public_api import SURFACE

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
BLOCK = re.compile(
    r"^(?:<!-- needs: (?P<needs>[^\n]+?) -->\n)?```python\n(?P<code>.*?)^```",
    re.MULTILINE | re.DOTALL,
)
IMPORT = re.compile(r"^(?:from|import) ([\w.]+)", re.MULTILINE)
#: The server URL the PostgreSQL pages show, replaced by the test server's.
SHOWN_URL = "postgresql://app@db.internal/knowledge"


def blocks(page: Path) -> list[tuple[str | None, str]]:
    """Each Python block of `page` as (what it needs to run, or None; its code)."""
    text = page.read_text(encoding="utf-8")
    return [(match["needs"], match["code"]) for match in BLOCK.finditer(text)]


def pages_with_python() -> list[Path]:
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    return [page for page in pages if "adr" not in page.parts and blocks(page)]


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def test_every_fence_is_read_as_a_block() -> None:
    """A fence the pattern missed (a stray space, another spelling) would go unchecked."""
    for page in pages_with_python():
        fences = page.read_text(encoding="utf-8").count("```python\n")
        assert len(blocks(page)) == fences, page


@pytest.mark.parametrize("page", pages_with_python(), ids=_name)
def test_every_block_imports_redstring_only_through_the_public_surface(page: Path) -> None:
    for _, code in blocks(page):
        for module in IMPORT.findall(code):
            if module.split(".")[0] == "redstring":
                assert module in SURFACE, module


def test_every_block_compiles_and_uses_no_name_it_does_not_define(tmp_path: Path) -> None:
    """Top-level `await` and `async with` are syntax errors in a script; a name the page
    defines only in prose (`query_vector`, `url`) is pyflakes' F821."""
    files = []
    for page in pages_with_python():
        for number, (_, code) in enumerate(blocks(page)):
            compile(code, f"{_name(page)} block {number}", "exec")
            file = tmp_path / f"{_name(page).replace('/', '_')}_{number}.py"
            file.write_text(code, encoding="utf-8")
            files.append(file)
    found = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F821,F401", *files],
        capture_output=True,
        text=True,
        check=False,
    )
    assert found.returncode == 0, found.stdout


def run(page: Path, capsys: pytest.CaptureFixture[str], url: str | None = None) -> list[str]:
    """Run `page`'s blocks as written, one after another, each a script of its own; the
    lines they print."""
    for number, (needs, code) in enumerate(blocks(page)):
        if needs is not None:
            continue
        script = code if url is None else code.replace(SHOWN_URL, url)
        namespace: dict[str, object] = {"__name__": "__main__"}
        exec(compile(script, f"{_name(page)} block {number}", "exec"), namespace)
    return capsys.readouterr().out.splitlines()


def _runnable(page: Path) -> bool:
    return any(needs is None for needs, _ in blocks(page))


@pytest.mark.parametrize(
    "page", [page for page in pages_with_python() if _runnable(page)], ids=_name
)
def test_every_block_runs_as_written_in_a_new_folder(
    page: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    monkeypatch.chdir(tmp_path)
    shows_postgres = any(SHOWN_URL in code for _, code in blocks(page))
    url = request.getfixturevalue("postgres_url") if shows_postgres else None
    assert run(page, capsys, url)


def test_the_build_how_to_prints_what_its_comments_say(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    lines = run(DOCS / "how-to" / "build-a-graph.md", capsys)
    assert lines[0] == "people_and_organisations 0.8"
    assert lines[1] == "3 2 []"


def test_the_retrieve_how_to_ranks_the_abbreviated_company_with_both_channels(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    [first, *_] = run(DOCS / "how-to" / "retrieve-entities.md", capsys)
    assert first.startswith("ACME Corporation")
    assert "semantic=" in first
    assert "lexical=" in first


def test_the_sqlite_and_postgres_pages_print_what_their_comments_say(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    postgres_url: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    sqlite = run(DOCS / "how-to" / "use-sqlite.md", capsys)
    assert sqlite[:2] == ["doc-1", "SqliteVectorStore"]
    assert sqlite[3].endswith("sample_docs/ada_lovelace.md #0")  # through the opener
    postgres = run(DOCS / "how-to" / "use-postgres.md", capsys, postgres_url)
    assert postgres == ["0 doc-1", "PgVectorStore"]
