"""`rekey`, `rebuild`, `remove` and `undo` work on a database that exists, and say when
the tenant they were pointed at holds nothing.

In process through `main()`, on real SQLite files, lexical only (no model).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from redstring import Redstring
from redstring.cli.main import main
from redstring.client import stores as client_stores
from redstring.client.tenants import DEFAULT_TENANT
from redstring.composition.sqlite_stores import SqliteStores
from redstring.domain.ids import tenant_id_for

NONE = ["--embeddings", "none"]
MERGE = str(uuid4())


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), env={}, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _indexed(tmp_path: Path, *tenant: str) -> Path:
    """A SQLite file holding one document, in the default tenant or `tenant`."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("Ada Lovelace wrote the first program.\n")
    db = tmp_path / "x.db"
    status, _, err = _run("index", str(tmp_path / "docs"), "--db", str(db), "--quiet", *tenant,
                          *NONE)  # fmt: skip
    assert status == 0, err
    return db


@pytest.mark.parametrize(
    "command",
    [["rekey"], ["rebuild"], ["remove", "x.md"], ["undo", MERGE, *NONE]],
    ids=["rekey", "rebuild", "remove", "undo"],
)
@pytest.mark.parametrize("folder", ["", "no-such-folder"], ids=["file", "folder"])
def test_upkeep_on_a_missing_database_is_refused_and_creates_nothing(
    tmp_path: Path, command: list[str], folder: str
) -> None:
    db = tmp_path / folder / "missing.db"
    status, out, err = _run(*command, "--db", str(db))
    assert (status, out) == (1, "")
    assert err == (
        f"redstring: error: no database at {db}. Check --db, or create one first with "
        f"`redstring index PATH... --db {db}` or `redstring build PATH... --db {db}`.\n"
    )
    assert not db.exists()
    assert not (tmp_path / folder).exists() or list((tmp_path / folder).iterdir()) == []


@pytest.mark.parametrize(
    "command",
    [["rekey"], ["rebuild"], ["remove", "docs/a.md"], ["undo", MERGE, *NONE]],
    ids=["rekey", "rebuild", "remove", "undo"],
)
def test_upkeep_opens_an_existing_database_once(
    tmp_path: Path, command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _indexed(tmp_path)
    opened: list[bool] = []
    real = client_stores.open_sqlite

    def counting(*args: Any, **kwargs: Any) -> SqliteStores:
        opened.append(bool(kwargs.get("read_only")))
        return real(*args, **kwargs)

    monkeypatch.setattr(client_stores, "open_sqlite", counting)
    status, _, err = _run(*command, "--db", str(db))
    assert opened == [False], err  # once, to write
    if command[0] != "undo":  # no such merge: refused after the open
        assert status == 0, err


def test_upkeep_on_an_existing_database_still_writes(tmp_path: Path) -> None:
    db = _indexed(tmp_path)
    status, out, err = _run("remove", "docs/a.md", "--db", str(db))
    assert (status, err) == (0, ""), err
    assert out == "removed docs/a.md (1 passage)\n"


def test_rebuilding_a_tenant_that_holds_nothing_names_the_tenants_that_do(
    tmp_path: Path,
) -> None:
    db = _indexed(tmp_path, "--tenant", "home")
    status, out, err = _run("rebuild", "--db", str(db), "--tenant", "hmoe")
    assert (status, err) == (0, "")
    typo, home = tenant_id_for("hmoe"), tenant_id_for("home")
    assert out.splitlines()[1:] == [
        f"tenant {typo} holds nothing in this database (check the tenant name); "
        f"tenants holding data: {home}."
    ]
    with Redstring(db, tenant="hmoe", embeddings="none") as rs:
        assert f"tenants holding data: {home}" in (rs.rebuild().hint or "")
    with Redstring(db, tenant="home", embeddings="none") as rs:
        assert rs.rebuild().hint is None  # it holds a passage: nothing to say
    status, out, _ = _run("rebuild", "--db", str(db), "--tenant", "home")
    assert status == 0
    assert len(out.splitlines()) == 1
    assert DEFAULT_TENANT not in (typo, home)
