"""A file a client created is removed at its close only when nobody wrote to it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from redstring import Redstring, sample_docs


def _chunks(client: Redstring) -> int:
    return sum(tenant.chunks or 0 for tenant in client.stats().tenants)


def test_a_file_another_client_wrote_outlives_the_client_that_created_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    reader = Redstring("shared.db", embeddings="none")
    assert _chunks(reader) == 0  # this call creates the file
    with Redstring("shared.db", embeddings="none") as writer:
        written = writer.index(sample_docs()).chunks_written
    assert written > 0
    reader.close()
    with Redstring("shared.db", embeddings="none") as again:
        assert _chunks(again) == written


def test_a_file_another_connection_holds_open_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    reader = Redstring("held.db", embeddings="none")
    reader.stats()
    other = sqlite3.connect("held.db")  # another process's connection, open, nothing written
    try:
        other.execute("SELECT count(*) FROM sqlite_master").fetchone()
        reader.close()
        assert (tmp_path / "held.db").exists()
    finally:
        other.close()


def test_a_file_nobody_wrote_to_is_still_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Redstring("unused.db", embeddings="none") as rs:
        rs.stats()
    assert list(tmp_path.iterdir()) == []
