"""The quick start's documents ship with the package, and a failed first call leaves no file."""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring import Redstring, sample_docs
from redstring.errors import DocumentPathError


def test_the_sample_documents_ship_inside_the_package() -> None:
    folder = sample_docs()
    assert folder.is_dir()
    assert folder.name == "sample_docs"
    assert Path(__file__).resolve().parents[3] / "src" in folder.parents
    names = sorted(path.name for path in folder.iterdir())
    assert "ada_lovelace.md" in names
    assert len(names) == 5


def test_a_failed_first_call_leaves_no_database_file_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DocumentPathError), Redstring("demo.db", embeddings="none") as rs:
        rs.index("examples/sample_docs")
    assert list(tmp_path.iterdir()) == []
    with Redstring("kept.db", embeddings="none") as rs:
        rs.index(sample_docs())
    assert (tmp_path / "kept.db").exists()
