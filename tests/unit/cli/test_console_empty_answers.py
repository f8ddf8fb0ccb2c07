"""Empty answers say why, and `stats` lists a tenant holding only passages (B167, B164).

The console script in a subprocess over a SQLite file, and the clients over
the same kind of file, lexical or with the fake provider (no model).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from redstring import AsyncRedstring, Redstring, SourceDocument, tenant_id_for
from redstring.client.tenants import DEFAULT_TENANT
from redstring.providers import FakeEmbeddingProvider
from tests.unit.cli.console import redstring

NONE = ["--embeddings", "none"]
NOTES = tenant_id_for("notes")


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    """A SQLite file whose only data is passages of the tenant `notes`."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("Ada Lovelace wrote the first program.\n")
    db = tmp_path / "x.db"
    ran = redstring("index", "docs", "--db", str(db), "--tenant", "notes", "--quiet", *NONE,
                    cwd=tmp_path)  # fmt: skip
    assert ran.status == 0, ran.err
    return db


def test_a_search_of_passages_without_entities_points_at_build(indexed: Path) -> None:
    ran = redstring("search", "Ada", "--db", str(indexed), "--tenant", "notes", *NONE)
    assert ran.status == 0, ran.err
    heading, *hint = ran.out.splitlines()
    assert heading == "0 entities for 'Ada' (lexical)"
    said = " ".join(line.strip() for line in hint)
    assert said.startswith(f"tenant {NOTES} holds 1 passage(s) but no entities: build")
    assert "`redstring build`" in said
    answer = json.loads(
        redstring("search", "Ada", "--db", str(indexed), "--tenant", "notes", "--json", *NONE).out
    )
    assert answer["matches"] == []
    assert "no entities: build" in answer["hint"]


def test_a_mistyped_tenant_is_named_with_the_tenants_that_hold_data(indexed: Path) -> None:
    for command in ("search", "passages"):
        ran = redstring(command, "Ada", "--db", str(indexed), "--tenant", "ntoes", "--json", *NONE)
        hint = json.loads(ran.out)["hint"]
        assert hint == (
            f"tenant {tenant_id_for('ntoes')} holds nothing in this database (check the tenant "
            f"name); tenants holding data: {NOTES}."
        )


def test_stats_lists_a_tenant_that_holds_only_passages(indexed: Path) -> None:
    ran = redstring("stats", "--db", str(indexed), "--json")
    rows = {row["tenant_id"]: row for row in json.loads(ran.out)["tenants"]}
    assert set(rows) == {str(NOTES), str(DEFAULT_TENANT)}
    assert (rows[str(NOTES)]["chunks"], rows[str(NOTES)]["entities"]) == (1, 0)


def test_the_clients_say_which_channel_or_filter_left_the_answer_empty(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    ada = SourceDocument(id="a.md", text="Ada Lovelace wrote the first program.")
    with Redstring(db, embeddings="none") as rs:
        rs.index([ada])  # stored without embeddings
        assert rs.passages("compiler").hint == "no passage shares a word with the query."
        filtered = rs.passages("Ada", sources=["b.md"])
        assert filtered.hint is not None
        assert "holds no source 'b.md', so nothing could match. Closest held: a.md." in (
            filtered.hint
        )
        rs.index([SourceDocument(id="b.md", text="Charles Babbage designed the engine.")])
        held = rs.passages("Ada", sources=["b.md"])
        assert held.hint is not None
        assert held.hint.startswith("no passage of the given sources matched")
        assert "no passage shares a word" in str(rs.passages("compiler"))
        assert rs.passages("Ada", k=0).hint is None  # nothing asked, nothing to explain
        assert rs.passages("Ada").hint is None  # found

    async def embedded() -> tuple[str | None, str | None, str | None]:
        async with AsyncRedstring(db, embeddings=FakeEmbeddingProvider(dimension=384)) as rs:
            semantic = await rs.passages("compiler", mode="hybrid")
            only = await rs.passages("Ada", mode="semantic")
            strict = await rs.passages("Ada", min_confidence=1.0)
            return semantic.hint, only.hint, strict.hint

    semantic, only, strict = asyncio.run(embedded())
    assert semantic is not None
    assert semantic.startswith("the semantic channel had nothing to search: no passage has an")
    assert semantic.endswith("and no passage shares a word with the query.")
    # in semantic mode no word was compared ("Ada" is in the passage): only the vectors count
    assert only == (
        "the semantic channel had nothing to search: no passage has an embedding (indexed "
        "or built without an embedding provider); index them with a provider, or search "
        "with mode 'lexical'."
    )
    assert strict == ("no passage reached min_confidence=1.0; lower it to see weaker matches.")
