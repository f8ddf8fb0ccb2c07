"""A command meeting another writer on its SQLite file says so, and what a command line can do."""

from __future__ import annotations

import io
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from redstring import Redstring, SourceDocument
from redstring.cli.main import main
from redstring.client.store_set import StoreSet
from redstring.composition.sqlite_stores import open_sqlite


@asynccontextmanager
async def _impatient(
    db: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None = None
) -> AsyncIterator[StoreSet]:
    """The command's stores over `db`, waiting a tenth of a second for a lock, not five."""
    sqlite = open_sqlite(db, busy_timeout=0.1, migrate=migrate, language=language)
    try:
        yield StoreSet(
            backend="SQLite",
            graph=sqlite.graph,
            vectors=sqlite.vectors,
            chunks=sqlite.chunks,
            events=sqlite.events,
        )
    finally:
        await sqlite.close()


def test_a_write_meeting_another_writer_says_it_is_busy_and_to_run_again(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    with Redstring(db, embeddings="none") as rs:
        rs.index([SourceDocument(id="a", text="Ada wrote the first program.")])
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # a long write of another process, holding the lock
    out, err = io.StringIO(), io.StringIO()
    try:
        status = main(
            ["remove", "a", "--db", db], env={}, opener=_impatient, stdout=out, stderr=err
        )
    finally:
        other.execute("ROLLBACK")
        other.close()
    said = err.getvalue()
    assert (status, out.getvalue()) == (1, ""), said
    assert said.startswith("redstring: error: ")
    assert "another connection or process is writing to this database now" in said
    assert said.rstrip().endswith("once the other command writing to it has ended.")
    assert "open_sqlite" not in said
    assert "reachable" not in said
    with Redstring(db, embeddings="none") as rs:
        assert sorted(rs.describe().sources) == ["a"]
