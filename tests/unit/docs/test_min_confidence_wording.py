"""Every users' description of `min_confidence` says what it does, and the same thing.

`min_confidence` empties an answer none of whose candidates (every ranked
result, returned or not) reaches it; it does not filter rows, so with `k=1`
a row below it can come back when a candidate ranked lower reaches it. A
description that says "unless some result reaches it" reads as the returned
rows, so each place says "returned or not" and that it does not filter rows.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from redstring import AsyncRedstring
from redstring.cli.main import main
from redstring.cli.mcp_server import open_server
from tests.unit.cli.mcp_fixture_server import world_client

ROOT = Path(__file__).resolve().parents[3]
#: The users' pages that explain what min_confidence does.
EXPLAINING = [
    "README.md",
    "docs/how-to/give-an-agent-entity-search.md",
    "docs/how-to/retrieve-chunks.md",
    "docs/how-to/use-the-command-line.md",
]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _says_it_precisely(where: str, text: str) -> None:
    flat = _flat(text)
    assert "returned or not" in flat, where
    assert "does not filter rows" in flat, where


def _users_pages() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [
        page
        for page in pages
        if "adr" not in page.relative_to(ROOT).parts and not page.name.startswith("benchmarks")
    ]


def test_no_users_page_reads_as_if_only_the_returned_rows_count() -> None:
    for page in _users_pages():
        flat = _flat(page.read_text(encoding="utf-8"))
        assert "unless some result reaches it" not in flat, page
        assert "rather than matches below this confidence" not in flat, page


@pytest.mark.parametrize("page", EXPLAINING)
def test_each_explaining_page_says_candidates_returned_or_not(page: str) -> None:
    _says_it_precisely(page, (ROOT / page).read_text(encoding="utf-8"))


@pytest.mark.parametrize("method", ["search", "passages"])
def test_the_python_docstrings_say_it(method: str) -> None:
    _says_it_precisely(method, getattr(AsyncRedstring, method).__doc__ or "")


@pytest.mark.parametrize("command", ["search", "passages"])
def test_the_command_line_help_says_it(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"], stdout=io.StringIO(), stderr=io.StringIO())
    help_text = capsys.readouterr().out  # argparse prints help to sys.stdout
    [entry] = re.findall(r"--min-confidence C\s+(.*?)(?:\n  -|\Z)", help_text, re.S)
    _says_it_precisely(f"{command} --help", entry)


@pytest.mark.asyncio
async def test_the_mcp_search_tools_say_it() -> None:
    async with world_client() as client:
        server = await open_server(client)
        tools = {tool.name: tool for tool in await server.list_tools()}
    for name in ("search_entities", "search_passages"):
        _says_it_precisely(name, tools[name].description or "")
