"""The commands through `main()`, in process, over real in-memory stores.

The store opener is the one seam: these tests hand `main` the stores of the
two-tenant world instead of a database file, so what a command prints can be
checked against known contents. The console script, the real opener and
SQLite files are exercised in `test_console_script.py`.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from redstring.cli.main import main
from redstring.client.store_set import StoreSet
from redstring.client.tenants import DEFAULT_TENANT
from tests.unit.cli.console import ENTITY_COLUMNS
from tests.unit.cli.world import ACME, ADA, HOME, OTHER, populated_stores

NO_ENV: dict[str, str] = {}
LEXICAL = ["--embeddings", "none"]


class Harness:
    def __init__(self, stores: StoreSet) -> None:
        self.stores = stores
        self.opened: list[dict[str, Any]] = []

    @asynccontextmanager
    async def opener(
        self,
        db: str,
        *,
        dimension: int | None,
        create: bool,
        migrate: bool,
        language: str | None = None,
    ) -> AsyncIterator[StoreSet]:
        self.opened.append({"db": db, "dimension": dimension, "create": create})
        yield self.stores

    def run(self, *argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        status = main(list(argv), env=NO_ENV, opener=self.opener, stdout=out, stderr=err)
        return status, out.getvalue(), err.getvalue()


@pytest.fixture
def harness() -> Harness:
    stores, _ = asyncio.run(populated_stores())
    return Harness(stores)


def test_search_prints_ranked_entities_with_each_channels_score(harness: Harness) -> None:
    status, out, err = harness.run(
        "search", "Ada Lovelace", "--db", "x.db", "--tenant", "home", *LEXICAL
    )
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "1 entity for 'Ada Lovelace' (lexical)"
    assert lines[1].split() == ENTITY_COLUMNS
    cells = lines[2].split()
    assert (cells[0], cells[3]) == ("1", "-")
    assert 0.5 < float(cells[1]) <= 1.0  # an exact name: a confident first
    assert float(cells[4]) == pytest.approx(1.0)
    assert cells[-1] == str(ADA)
    assert harness.opened == [{"db": "x.db", "dimension": None, "create": False}]


def test_search_json_filters_by_type_and_k(harness: Harness) -> None:
    status, out, _ = harness.run(
        "search",
        "ACME Corporation Ada",
        "--db",
        "x.db",
        "--tenant",
        str(HOME),
        "--type",
        "organization",
        "-k",
        "1",
        "--json",
        *LEXICAL,
    )
    answer = json.loads(out)
    assert status == 0
    assert [(m["id"], m["type"]) for m in answer["matches"]] == [(str(ACME), "organization")]
    assert answer["matches"][0]["semantic"] is None
    assert 0.0 < answer["matches"][0]["lexical"] <= 1.0
    assert answer["tenant_id"] == str(HOME)


def test_the_tenant_flag_decides_whose_entities_are_searched(harness: Harness) -> None:
    _, home, _ = harness.run(
        "search", "Ada Lovelace", "--db", "x", "--tenant", "home", "--json", *LEXICAL
    )
    _, other, _ = harness.run(
        "search", "Ada Lovelace", "--db", "x", "--tenant", "other", "--json", *LEXICAL
    )
    _, default, _ = harness.run("search", "Ada Lovelace", "--db", "x", "--json", *LEXICAL)
    assert "SECRET" not in home
    assert "SECRET" in other
    assert json.loads(home)["matches"][0]["id"] == str(ADA)
    assert json.loads(default) == {
        "tenant_id": str(DEFAULT_TENANT),
        "query": "Ada Lovelace",
        "mode": "lexical",
        "fusion": None,  # only HYBRID fuses
        "matches": [],
        "hint": f"tenant {DEFAULT_TENANT} holds nothing in this database (check the tenant "
        f"name); tenants holding data: {', '.join(sorted([str(HOME), str(OTHER)]))}.",
    }


def test_passages_print_source_scores_and_text(harness: Harness) -> None:
    status, out, _ = harness.run(
        "passages", "first program", "--db", "x", "--tenant", "home", *LEXICAL
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "1 passage for 'first program' (lexical)"
    assert "semantic -" in lines[1]
    assert "notes.md #0" in lines[1]
    assert "bm25 " in lines[1]
    assert lines[2].strip() == "Ada Lovelace wrote the **first** **program** in 1843."


def test_stats_lists_every_tenant_with_entities_by_type(harness: Harness) -> None:
    status, out, _ = harness.run("stats", "--db", "x", "--tenant", "home", "--json")
    answer = json.loads(out)
    assert status == 0
    by_tenant = {row["tenant_id"]: row for row in answer["tenants"]}
    assert set(by_tenant) == {str(HOME), str(OTHER)}
    home = by_tenant[str(HOME)]
    assert home["entities_by_type"] == {"organization": 1, "person": 3}
    assert (home["entities"], home["relationships"], home["entity_vectors"], home["chunks"]) == (
        4,
        1,
        4,
        1,
    )
    assert by_tenant[str(OTHER)]["entities_by_type"] == {"person": 2}


def test_stats_text_names_the_tenant_asked_about_even_when_empty(harness: Harness) -> None:
    status, out, _ = harness.run("stats", "--db", "x")
    assert status == 0
    assert out.splitlines()[0] == "memory database, 3 tenants"
    assert f"tenant {DEFAULT_TENANT}" in out
    assert "    person       3" in out


def test_index_writes_passages_then_finds_them_unchanged(harness: Harness, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Ada\n\nAda Lovelace wrote notes on the Engine.\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("Grace Hopper built a compiler.")
    first = harness.run("index", str(tmp_path), "--db", "x", "--tenant", "t", *LEXICAL)
    again = harness.run("index", str(tmp_path), "--db", "x", "--tenant", "t", *LEXICAL)
    assert first[0] == 0
    assert first[1] == (
        "indexed 2 documents: 2 chunks written, 0 documents unchanged, 0 chunks embedded\n"
    )
    final = first[2].replace("\r", "\n").splitlines()[-1]  # tqdm's last redraw
    assert final.startswith("indexing: 100%|")
    assert " 2/2 [" in final
    assert "chunk/s]" in final
    assert again[1].startswith("indexed 2 documents: 0 chunks written, 2 documents unchanged")
    _, out, _ = harness.run(
        "passages", "compiler", "--db", "x", "--tenant", "t", "--json", *LEXICAL
    )
    [hit] = json.loads(out)["matches"]
    assert hit["source_id"].endswith("sub/b.txt")
    assert harness.opened[0]["create"] is True


def test_a_backend_without_chunks_refuses_index_and_passages(
    harness: Harness, tmp_path: Path
) -> None:
    harness.stores = replace(harness.stores, backend="SQLite", chunks=None)
    (tmp_path / "a.txt").write_text("text")
    index = harness.run("index", str(tmp_path), "--db", "x", *LEXICAL)
    passages = harness.run("passages", "text", "--db", "x", *LEXICAL)
    for status, out, err in (index, passages):
        assert (status, out) == (1, "")
        assert err.startswith("redstring: error: `redstring ")
        assert "no persistent chunk store for SQLite" in err
        assert err.count("\n") == 1


#: A language model's flags for `build`: its server is never reached by a path error.
BUILD = ["--llm-base-url", "http://127.0.0.1:1/v1", "--llm-model", "m"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["search", "  ", "--db", "x"], "query must not be blank"),
        (
            ["search", "Ada", "--db", "x", "--mode", "semantic", *LEXICAL],
            "semantic retrieval needs an embedding provider",
        ),
        (
            ["passages", "Ada", "--db", "x", "--mode", "hybrid", *LEXICAL],
            "hybrid retrieval needs an embedding provider",
        ),
        (["index", "/no/such/dir", "--db", "x", *LEXICAL], "/no/such/dir: no such file"),
        (["search", "Ada", "--db", "x", "--embeddings", "openai"], "needs --embed-base-url"),
        (["build", "docs", "--db", "x"], "needs --llm-base-url"),
        (["index", "/", "--root", "/dev/null", "--db", "x", *LEXICAL], "--root is not a folder"),
        (["build", "/", "--root", "/dev/null", "--db", "x", *BUILD], "--root is not a folder"),
    ],
)
def test_failures_are_one_line_on_stderr(harness: Harness, argv: list[str], says: str) -> None:
    status, out, err = harness.run(*argv)
    assert (status, out) == (1, "")
    assert err.startswith("redstring: error: ")
    assert says in err
    assert err.count("\n") == 1


def test_index_warns_when_it_defaults_to_no_embeddings(
    harness: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("redstring.cli.providers.local_extra_installed", lambda: False)
    (tmp_path / "a.md").write_text("Ada Lovelace wrote notes on the Engine.\n")
    status, out, err = harness.run("index", str(tmp_path), "--db", "x", "--quiet")
    assert status == 0
    assert out.startswith("indexed 1 document")
    assert err.startswith("redstring: warning: no embedding provider")
    assert "only lexical search finds them" in err
    _, _, chosen = harness.run(
        "index", str(tmp_path), "--db", "x", "--quiet", "--embeddings", "none"
    )
    assert chosen == ""


def test_min_confidence_empties_weak_answers_and_says_so(harness: Harness) -> None:
    base = ["--db", "x", "--tenant", "home", "--json", *LEXICAL]
    _, kept, _ = harness.run("search", "Ada Lovelace", *base, "--min-confidence", "0")
    _, strict, _ = harness.run("search", "Ada Lovelace", *base, "--min-confidence", "1")
    _, passages, _ = harness.run("passages", "first program", *base, "--min-confidence", "1")
    assert json.loads(kept)["matches"][0]["id"] == str(ADA)
    assert json.loads(strict)["matches"] == []
    assert json.loads(strict)["hint"].startswith("no entity reached min_confidence=1.0")
    assert json.loads(passages)["hint"].startswith("no passage reached min_confidence=1.0")
    status, out, err = harness.run("search", "Ada", "--db", "x", "--min-confidence", "2")
    assert (status, out) == (2, "")
    assert "argument --min-confidence: must be a number from 0 to 1, got '2'" in err
