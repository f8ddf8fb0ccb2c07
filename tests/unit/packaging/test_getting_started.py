"""The getting-started page runs as written, from the built wheel in a fresh environment.

The page's blocks run in order in an empty folder: each shell block through
bash with the environment's scripts first on PATH, the Python block with the
environment's interpreter, and the MCP configuration through the MCP SDK's
own client, started exactly as the JSON says. Two substitutions, both named
on the page: the `pip install` line installs the built wheel (the package is
not fetched from an index), and the placeholder path is the real one.
"""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.unit.packaging.conftest import ROOT, Venv

PAGE = ROOT / "docs" / "getting-started.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)
INSTALL = re.compile(r"^pip install '?redstring(?:\[([\w,]+)\])?'?$")
PLACEHOLDER = "/absolute/path/to/notes.db"

pytestmark = pytest.mark.slow


def page_blocks() -> list[tuple[str, str]]:
    return FENCE.findall(PAGE.read_text(encoding="utf-8"))


def run_shell(code: str, venv: Venv, cwd: Path) -> str:
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code],
        cwd=cwd,
        env=venv.env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def install_line(block: str) -> tuple[str, str]:
    """The block's extras (from its `pip install` line) and the block without that line."""
    lines = block.splitlines()
    [extras] = [match.group(1) or "" for line in lines if (match := INSTALL.match(line))]
    return extras, "\n".join(line for line in lines if not INSTALL.match(line))


def test_the_install_line_names_the_extras_and_the_rest_is_left_to_run() -> None:
    assert install_line("pip install 'redstring[local,mcp]'\nredstring --version") == (
        "local,mcp",
        "redstring --version",
    )
    assert install_line("pip install redstring\nls") == ("", "ls")


def declared_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def first_match(output: str) -> str:
    """The source of the first ranked passage a `passages` answer prints."""
    [source] = re.findall(r"^1\. .*?(\S+) #\d+$", output, flags=re.MULTILINE)[:1]
    return source


@dataclass
class PageRun:
    venv: Venv
    work: Path
    shell: list[str] = field(default_factory=list)
    python: str = ""
    mcp: dict[str, Any] = field(default_factory=dict)


def run_the_page(
    fresh_venv: Callable[[str], Venv], tmp_path: Path, *, extras: str | None = None
) -> PageRun:
    """Run every block; `extras` overrides the page's install line (None: as written)."""
    work = tmp_path / "work"
    work.mkdir()
    run: PageRun | None = None
    for language, block in page_blocks():
        code = block
        if language == "bash" and INSTALL.match(code.splitlines()[0]):
            written, code = install_line(code)
            run = PageRun(venv=fresh_venv(written if extras is None else extras), work=work)
        assert run is not None, "the first block installs"
        if language == "bash":
            run.shell.append(run_shell(code, run.venv, work))
        elif language == "python":
            script = tmp_path / "quick_start.py"
            script.write_text(code)
            run.python = run_shell(f"python {script}", run.venv, work)
        elif language == "json":
            run.mcp = json.loads(code)["mcpServers"]
    assert run is not None
    return run


async def call_the_server(run: PageRun, query: str) -> dict[str, Any]:
    """Start the server as the page's configuration says and search through it."""
    [server] = run.mcp.values()
    database = str(run.work / "notes.db")
    args = [database if arg == PLACEHOLDER else arg for arg in server["args"]]
    assert database in args, "the page's placeholder path was replaced"
    parameters = StdioServerParameters(
        command=str(run.venv.bin / server["command"]), args=args, env=run.venv.env(), cwd=run.work
    )
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert {"describe_tenant", "search_passages", "read_passage"} <= tools
        answer = await session.call_tool("search_passages", {"query": query, "k": 1})
        assert not answer.is_error, answer.content
        assert answer.structured_content is not None
        return answer.structured_content


def the_query() -> str:
    [query] = re.findall(r'redstring passages "([^"]+)"', PAGE.read_text(encoding="utf-8"))
    return query


@pytest.mark.asyncio
async def test_the_page_runs_as_written_with_the_extras_it_names(
    fresh_venv: Callable[[str], Venv], tmp_path: Path
) -> None:
    run = run_the_page(fresh_venv, tmp_path)
    version, index, search = run.shell
    assert version == f"redstring {declared_version()}\n"
    assert "2 chunks embedded" in index
    assert re.search(r"^\d+ passages? for .* \(hybrid\)$", search, flags=re.MULTILINE), search
    assert first_match(search) == "notes/ada.md"
    assert run.python.startswith(f"1 passage for '{the_query()}' (hybrid)\n"), run.python
    assert first_match(run.python) == "notes/ada.md"
    answer = await call_the_server(run, the_query())
    assert answer["mode"] == "hybrid"
    assert [match["source"] for match in answer["matches"]] == ["notes/ada.md"]


def test_a_plain_install_runs_the_same_page_with_lexical_search(
    fresh_venv: Callable[[str], Venv], tmp_path: Path
) -> None:
    run = run_the_page(fresh_venv, tmp_path, extras="")
    _, index, search = run.shell
    assert "0 chunks embedded" in index
    assert re.search(r"^\d+ passages? for .* \(lexical\)$", search, flags=re.MULTILINE), search
    assert first_match(search) == "notes/ada.md"
    assert first_match(run.python) == "notes/ada.md"
    server = subprocess.run(
        ["redstring", "mcp", "--db", "notes.db"],
        cwd=run.work,
        env=run.venv.env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert server.returncode != 0
    assert server.stderr.strip().splitlines()[-1].endswith("pip install 'redstring[mcp]'.")
