"""The installed `redstring` command, run in a subprocess: flags, errors, and SQLite files."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from redstring.client.tenants import DEFAULT_TENANT, parse_tenant
from tests.hang_guard import HANG_GUARD_SECONDS
from tests.unit.adapters.openai_protocol_server import serve
from tests.unit.cli.console import (
    ENTITY_COLUMNS,
    ROOT,
    SAMPLES,
    assert_one_error_line,
    clean_env,
    redstring,
)
from tests.unit.cli.mcp_client import session
from tests.unit.cli.sample_model import DIMENSION, script

EXAMPLE = ROOT / "examples" / "mcp_client.py"


def test_the_console_script_is_installed_and_answers_help() -> None:
    script = Path(sys.executable).parent / "redstring"
    done = subprocess.run(
        [str(script), "--help"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )
    assert done.returncode == 0
    for command in ("index", "build", "search", "passages", "stats", "mcp"):
        assert command in done.stdout


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["search"], "the following arguments are required: query"),
        (["search", "Ada", "--db", "x.db", "-k", "-1"], "argument -k: must be a whole number >= 0"),
        (["search", "Ada", "--db", "x.db", "-k", "ten"], "argument -k: must be a whole number"),
        (["search", "Ada", "--db", "x.db", "--mode", "fuzzy"], "argument --mode: invalid choice"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["stats", "--db", "x.db", "--type", "person"], "unrecognized arguments"),
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


def test_a_build_against_an_unreachable_model_server_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ran = redstring(
        "build",
        str(SAMPLES / "alan_turing.txt"),
        "--db",
        str(tmp_path / "g.db"),
        "--llm-base-url",
        f"http://127.0.0.1:{port}/v1",
        "--llm-model",
        "m",
        "--embeddings",
        "none",
        "--quiet",
    )
    line = assert_one_error_line(ran)
    assert not (tmp_path / "g.db").exists()  # refused before the database was created
    assert line.startswith(
        f"redstring: error: cannot connect to the model server at "
        f"http://127.0.0.1:{port}/v1 (model 'm')"
    )


def test_build_then_search_stats_and_the_mcp_server_on_one_sqlite_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "demo.db")
    # Eight commands in turn: on a loaded machine they outlast the default 60 s lifetime.
    with serve(script, lifetime=600) as server:
        env = clean_env(
            REDSTRING_LLM_BASE_URL=server.base_url,
            REDSTRING_LLM_MODEL="scripted-chat",
            REDSTRING_EMBEDDINGS="openai",
            REDSTRING_EMBED_BASE_URL=server.base_url,
            REDSTRING_EMBED_MODEL="scripted-embed",
            REDSTRING_EMBED_DIMENSION=str(DIMENSION),
        )
        built = redstring("build", "src/redstring/sample_docs", "--db", db, "--json", env=env)
        found = redstring("search", "Ada Lovelace", "--db", db, "-k", "3", "--json", env=env)
        typed = redstring(
            "search", "Remington", "--db", db, "--type", "organization", "--json", env=env
        )
        table = redstring("search", "Grace Hopper", "--db", db, "-k", "2", env=env)
        counted = redstring("stats", "--db", db, "--json", env=env)
        elsewhere = redstring(
            "search", "Ada Lovelace", "--db", db, "--tenant", "acme", "--json", env=env
        )
        served = asyncio.run(_ask_the_mcp_server(db, env))
        # In this process: as a subprocess (traced by coverage, like every child here) it
        # outlasted a 120 s timeout on a loaded 2-core machine without hanging.
        for name, value in env.items():
            if name.startswith("REDSTRING_"):
                monkeypatch.setenv(name, value)
        example = asyncio.run(_example().run(db, "Ada Lovelace", "search_entities", 1, []))
        printed_by_example = capsys.readouterr().out
        described = asyncio.run(_example().run(db, "", "describe_tenant", 1, []))
        printed_description = capsys.readouterr().out.partition("\n")[2]
    assert built.status == 0, built.err
    report = json.loads(built.out)
    assert (report["documents"], report["entities_written"], report["failures"]) == (5, 13, [])
    assert report["domain"] == "people_and_organisations"
    assert "building: 100%|" in built.err

    assert found.status == 0, found.err
    answer = json.loads(found.out)
    top = answer["matches"][0]
    assert (top["name"], top["type"], answer["mode"]) == ("Ada Lovelace", "person", "hybrid")
    assert top["semantic"] is not None
    assert top["lexical"] == pytest.approx(1.0)
    assert answer["tenant_id"] == str(DEFAULT_TENANT)
    organizations = json.loads(typed.out)["matches"]
    assert organizations[0]["name"] == "Remington Rand"
    assert {m["type"] for m in organizations} == {"organization"}
    header, first = table.out.splitlines()[1:3]
    assert header.split() == ENTITY_COLUMNS
    assert first.split()[5:7] == ["person", "Grace"]

    [tenant] = json.loads(counted.out)["tenants"]
    assert tenant["entities_by_type"] == {"location": 2, "organization": 5, "person": 6}
    assert (tenant["relationships"], tenant["entity_vectors"]) == (7, 13)
    assert json.loads(elsewhere.out)["matches"] == []

    assert example == 0
    tools_line, _, printed = printed_by_example.partition("\n")
    assert tools_line == (
        "tools: describe_tenant, search_entities, get_entity, search_passages, read_passage"
    )
    shown = json.loads(printed)
    names = [dict(zip(shown["columns"], row, strict=True))["name"] for row in shown["matches"]]
    assert names == ["Ada Lovelace"]
    assert described == 0
    assert json.loads(printed_description)["entity_types"] == {
        "location": 2,
        "organization": 5,
        "person": 6,
    }

    tools, ada, neighbours = served
    assert tools == [
        "describe_tenant",
        "get_entity",
        "read_passage",
        "search_entities",
        "search_passages",
    ]
    assert ada["name"] == "Ada Lovelace"
    assert neighbours == ["Charles Babbage"]


def _example() -> Any:
    """examples/mcp_client.py as a module, to run its client in this process."""
    spec = importlib.util.spec_from_file_location("mcp_client_example", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def _ask_the_mcp_server(db: str, env: dict[str, str]) -> tuple[list[str], Any, list[str]]:
    async with session(sys.executable, ["-m", "redstring.cli", "mcp", "--db", db], env) as client:
        tools = sorted(tool.name for tool in (await client.list_tools()).tools)
        found = await client.call_tool("search_entities", {"query": "Ada Lovelace", "k": 1})
        answer = found.structured_content
        [ada] = [dict(zip(answer["columns"], row, strict=True)) for row in answer["matches"]]
        detail = await client.call_tool("get_entity", {"entity_id": ada["id"]})
    neighbours = [n["name"] for n in detail.structured_content["related"]]
    return tools, ada, neighbours


@pytest.fixture(scope="module")
def built_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A redstring SQLite file the console script built (tenant turing; none in the default).

    Built once per module: each test below changes or reads its own copy.
    """
    db = str(tmp_path_factory.mktemp("built") / "made.db")
    with serve(script) as server:
        built = redstring(
            "build",
            str(SAMPLES / "alan_turing.txt"),
            "--db",
            db,
            "--quiet",
            "--llm-base-url",
            server.base_url,
            "--llm-model",
            "m",
            "--embeddings",
            "none",
            "--tenant",
            "turing",
        )
    assert built.status == 0, built.err
    # The build's last connection closed: the whole database is in the one file.
    assert not Path(f"{db}-wal").exists()
    return Path(db)


@pytest.fixture
def sqlite_file(built_file: Path, tmp_path: Path) -> str:
    """This test's own copy of the built file."""
    db = tmp_path / "made.db"
    shutil.copyfile(built_file, db)
    return str(db)


def test_a_database_from_a_newer_redstring_is_one_line_and_left_alone(sqlite_file: str) -> None:
    db = sqlite_file
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE redstring_schema SET version = 99 WHERE component = 'graph'")
    raw.close()
    line = assert_one_error_line(redstring("stats", "--db", db))
    assert line.startswith("redstring: error: ")
    assert "schema 'graph' is at version 99, newer than" in line
    assert "Upgrade redstring" in line
    with sqlite3.connect(db) as raw:
        [(version,)] = raw.execute(
            "SELECT version FROM redstring_schema WHERE component = 'graph'"
        ).fetchall()
    raw.close()
    assert version == 99


def test_an_older_database_names_the_migrate_flag(sqlite_file: str) -> None:
    db = sqlite_file
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE redstring_schema SET version = 0 WHERE component = 'graph'")
    raw.close()
    line = assert_one_error_line(
        redstring("search", "Alan Turing", "--db", db, "--embeddings", "none")
    )
    assert "schema 'graph' is at version 0" in line
    assert line.endswith("From the command line: back the database up, then add --migrate.")


def test_stats_and_lexical_search_read_a_sqlite_file_per_tenant(sqlite_file: str) -> None:
    db = sqlite_file
    stats = redstring("stats", "--db", db)
    found = redstring(
        "search", "Alan Turing", "--db", db, "--tenant", "turing", "--embeddings", "none"
    )
    assert stats.status == 0, stats.err
    assert stats.out.splitlines()[0] == "SQLite database, 2 tenants"
    assert f"tenant {parse_tenant('turing')}\n  entities       3\n" in stats.out
    assert f"tenant {DEFAULT_TENANT}: empty (nothing indexed or built in it)\n" in stats.out
    assert "chunks         1" in stats.out
    assert found.out.splitlines()[0] == "1 entity for 'Alan Turing' (lexical)"


def test_the_readme_walkthrough_indexes_and_searches_passages_on_sqlite(tmp_path: Path) -> None:
    # The README's commands, with the default (local) embeddings.
    db = str(tmp_path / "demo.db")
    first = redstring("index", "src/redstring/sample_docs", "--db", db)
    again = redstring("index", "src/redstring/sample_docs", "--db", db, "--quiet")
    found = redstring("passages", "the first computer program", "--db", db, "-k", "2", "--json")
    shown = redstring("passages", "the first compiler", "--db", db, "-k", "1")
    counted = redstring("stats", "--db", db, "--json")
    served = asyncio.run(_ask_for_passages(db))
    assert first.status == 0, first.err
    assert first.out.startswith("indexed 5 documents: ")
    assert first.out.endswith(" 0 documents unchanged, 5 chunks embedded\n")
    assert " 5/5 [" in first.err.replace("\r", "\n").splitlines()[-1]
    assert again.out == (
        "indexed 5 documents: 0 chunks written, 5 documents unchanged, 0 chunks embedded\n"
    )
    answer = json.loads(found.out)
    assert answer["mode"] == "hybrid"
    top = answer["matches"][0]
    assert top["source_id"] == "sample_docs/ada_lovelace.md"
    assert top["semantic"] is not None
    assert top["bm25"] is not None
    assert "sample_docs/grace_hopper.md #0" in shown.out.splitlines()[1]
    [tenant] = json.loads(counted.out)["tenants"]
    assert (tenant["tenant_id"], tenant["chunks"], tenant["entities"]) == (
        str(DEFAULT_TENANT),
        5,
        0,
    )
    assert served["matches"][0]["source"] == "sample_docs/ada_lovelace.md"


async def _ask_for_passages(db: str) -> Any:
    async with session(sys.executable, ["-m", "redstring.cli", "mcp", "--db", db]) as client:
        result = await client.call_tool(
            "search_passages", {"query": "the first computer program", "k": 1}
        )
    return result.structured_content


def test_without_db_every_command_uses_redstring_db_in_the_working_directory(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("Ada Lovelace wrote the first program.\n")
    indexed = redstring("index", "notes", "--embeddings", "none", "--quiet", cwd=tmp_path)
    found = redstring("passages", "first program", "--embeddings", "none", cwd=tmp_path)
    assert indexed.status == 0, indexed.err
    assert (tmp_path / "redstring.db").is_file()
    assert found.out.startswith("1 passage for 'first program' (lexical)\n")


def test_the_example_client_on_an_indexed_tenant_says_why_it_searches_passages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's demo.db is indexed, never built: no entity tools, and the page's command
    still answers, saying why, rather than printing the SDK's 'Unknown tool'."""
    db = str(tmp_path / "demo.db")
    indexed = redstring("index", str(SAMPLES), "--db", db, "--embeddings", "none", "--quiet")
    assert indexed.status == 0, indexed.err
    ask = _example().run(
        db, "the first computer program", "search_entities", 1, ["--embeddings", "none"]
    )
    assert asyncio.run(ask) == 0
    printed = capsys.readouterr()
    assert "this tenant holds no entities yet (run `redstring build`" in printed.err
    assert "Unknown tool" not in printed.out + printed.err
    assert "sample_docs/ada_lovelace.md" in printed.out
