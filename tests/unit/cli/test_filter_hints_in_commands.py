"""`passages --source` and `search --type` naming what the tenant does not hold say so on the
command line and in the Python client's hint, with the closest held values.

In process through `main()` and through the clients, on a SQLite file or the two-tenant
world's stores, lexical only.
"""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from redstring import AsyncRedstring, Redstring, SourceDocument
from redstring.cli.main import main
from redstring.client.tenants import DEFAULT_TENANT
from tests.unit.cli.mcp_fixture_server import opener_of
from tests.unit.cli.world import HOME, populated_stores


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), env={}, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "x.db"
    with Redstring(path, embeddings="none") as rs:
        rs.index([SourceDocument(id="docs/a.md", text="Ada Lovelace wrote the first program.")])
    return path


def test_a_source_without_its_folder_is_named_with_the_held_id(db: Path) -> None:
    status, out, err = _run("passages", "Lovelace", "--source", "a.md", "--db", str(db),
                            "--embeddings", "none", "--json")  # fmt: skip
    assert (status, err) == (0, "")
    assert json.loads(out)["hint"] == (
        f"tenant {DEFAULT_TENANT} holds no source 'a.md', so nothing could match. "
        "Closest held: docs/a.md."
    )
    with Redstring(db, embeddings="none") as rs:
        assert rs.passages("Lovelace", sources=["a.md"]).hint == json.loads(out)["hint"]


def test_a_misspelt_type_is_named_with_the_closest_held_type() -> None:
    stores, _ = asyncio.run(populated_stores())
    out, err = io.StringIO(), io.StringIO()
    argv = ["search", "Ada", "--type", "Persn", "--db", "x.db", "--tenant", "home",
            "--embeddings", "none", "--json"]  # fmt: skip
    assert main(argv, env={}, opener=opener_of(stores), stdout=out, stderr=err) == 0
    expected = f"tenant {HOME} holds no type 'Persn', so nothing could match. Closest held: person."
    assert json.loads(out.getvalue())["hint"] == expected

    async def through_the_client() -> str | None:
        client = AsyncRedstring(tenant="home", embeddings="none", opener=opener_of(stores))
        async with client as rs:
            return (await rs.search("Ada", types=["Persn"])).hint

    assert asyncio.run(through_the_client()) == expected
