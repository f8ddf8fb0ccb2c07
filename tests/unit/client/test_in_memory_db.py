"""`Redstring(":memory:")`: a database that lives as long as the client, as SQLite spells it."""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring import Redstring, sample_docs


def test_a_memory_database_indexes_and_answers_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Redstring(":memory:", embeddings="none") as rs:
        report = rs.index(sample_docs())
        assert report.chunks_written > 0
        [top, *_] = rs.passages("first computer program", mode="lexical")
        assert "ada_lovelace" in top.source_id
        [row] = rs.stats()
        assert row.chunks == report.chunks_written
    assert list(tmp_path.iterdir()) == []


def test_each_memory_client_starts_empty() -> None:
    with Redstring(":memory:", embeddings="none") as rs:
        rs.index(sample_docs())
    with Redstring(":memory:", embeddings="none") as rs:
        assert [row.chunks for row in rs.stats()] in ([], [0])


def test_a_memory_database_analyses_passages_in_the_language_asked_for() -> None:
    with Redstring(":memory:", embeddings="none", language="none") as rs:
        rs.index(sample_docs())
        assert not rs.passages("compiling", mode="lexical")  # unstemmed: not "compilers"
    with Redstring(":memory:", embeddings="none") as rs:
        rs.index(sample_docs())
        assert rs.passages("compiling", mode="lexical")
