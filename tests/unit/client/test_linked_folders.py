"""A folder's walk follows links to folders, reading each folder once.

A subfolder moved to another disk and linked back is read at the link's
path, so its documents keep their ids and a later `index` removes nothing.
A link to a folder the walk has read already (the folder holding it, a loop,
or a folder read at its own place) is skipped and named, and what was indexed
under it is kept, never removed as if its files had left.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from redstring import Redstring
from redstring.client.documents import read_documents
from redstring.errors import DocumentPathError

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _notes(tmp_path: Path) -> Path:
    notes = tmp_path / "notes"
    _write(notes / "a.md", "Top level note about zebras.")
    _write(notes / "sub" / "b.md", "Sub note about quokkas.")
    return notes


def test_a_subfolder_moved_away_and_linked_back_keeps_its_documents(tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(notes)
        storage = tmp_path / "storage"
        storage.mkdir()
        shutil.move(notes / "sub", storage / "sub")
        (notes / "sub").symlink_to(Path("..") / "storage" / "sub")
        report = rs.index(notes)
        assert (report.removed, report.skipped, report.unchanged) == ([], [], 2)
        [hit] = rs.passages("quokkas", mode="lexical").matches
    assert hit.source_id == "notes/sub/b.md"


def test_a_linked_folder_outside_the_folder_named_is_read_at_the_links_path(
    tmp_path: Path,
) -> None:
    notes = _notes(tmp_path)
    _write(tmp_path / "elsewhere" / "deep" / "c.md", "Linked from outside.")
    (notes / "linked").symlink_to(tmp_path / "elsewhere")
    read = read_documents([notes])
    assert [document.id for document in read.documents] == [
        "notes/a.md",
        "notes/linked/deep/c.md",
        "notes/sub/b.md",
    ]
    assert read.skipped == []


def test_a_link_to_a_folder_holding_it_is_skipped_and_named_not_followed(tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    (notes / "sub" / "up").symlink_to("..")
    (notes / "self").symlink_to(".")
    read = read_documents([notes])
    assert [document.id for document in read.documents] == ["notes/a.md", "notes/sub/b.md"]
    assert [(file.id, file.reason) for file in read.skipped] == [
        ("notes/self/", "a link to notes/, which holds it: not followed, it would loop"),
        ("notes/sub/up/", "a link to notes/, which holds it: not followed, it would loop"),
    ]


def test_links_looping_outside_the_folder_named_end_with_each_folder_read_once(
    tmp_path: Path,
) -> None:
    notes = _notes(tmp_path)
    _write(tmp_path / "one" / "c.md", "Folder one.")
    _write(tmp_path / "two" / "d.md", "Folder two.")
    (tmp_path / "one" / "to-two").symlink_to(tmp_path / "two")
    (tmp_path / "two" / "to-one").symlink_to(tmp_path / "one")
    (notes / "one").symlink_to(tmp_path / "one")
    read = read_documents([notes])
    assert [document.id for document in read.documents] == [
        "notes/a.md",
        "notes/one/c.md",
        "notes/one/to-two/d.md",
        "notes/sub/b.md",
    ]
    assert [(file.id, file.reason) for file in read.skipped] == [
        ("notes/one/to-two/to-one/", "a link to notes/one/, which holds it: not followed, it "
         "would loop"),
    ]  # fmt: skip


def test_a_link_to_a_folder_read_at_its_own_place_is_skipped_not_read_twice(
    tmp_path: Path,
) -> None:
    notes = _notes(tmp_path)
    (notes / "alias").symlink_to("sub")  # sorts before `sub`, which is still read as itself
    read = read_documents([notes])
    assert [document.id for document in read.documents] == ["notes/a.md", "notes/sub/b.md"]
    assert [(file.id, file.reason) for file in read.skipped] == [
        ("notes/alias/", "a link to notes/sub/, read there: not read twice"),
    ]


def test_what_was_indexed_under_a_skipped_linked_folder_is_kept(tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    _write(notes / "alias" / "b.md", "Sub note about quokkas.")
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(notes)
        shutil.rmtree(notes / "alias")
        (notes / "alias").symlink_to("sub")
        report = rs.index(notes)
        assert report.removed == []
        assert [file.id for file in report.skipped] == ["notes/alias/"]
        assert set(rs.describe().sources) == {"notes/a.md", "notes/alias/b.md", "notes/sub/b.md"}
        (notes / "alias").unlink()  # the link gone: its documents left the folder
        assert rs.index(notes).removed == ["notes/alias/b.md"]


def test_a_folder_indexed_as_its_root_mirrors_its_linked_subfolders(tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    _write(tmp_path / "elsewhere" / "c.md", "Linked.")
    _write(tmp_path / "elsewhere" / "d.md", "Linked, then deleted.")
    (notes / "linked").symlink_to(tmp_path / "elsewhere")
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(notes, root=notes)
        (tmp_path / "elsewhere" / "d.md").unlink()
        assert rs.index(notes, root=notes).removed == ["linked/d.md"]
        assert set(rs.describe().sources) == {"a.md", "linked/c.md", "sub/b.md"}


def test_a_subfolder_that_cannot_be_listed_is_skipped_and_its_documents_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a folder without read permission is (the suite may run as root, who reads it)."""
    notes = _notes(tmp_path)
    listing = os.scandir

    def scandir(path: str | os.PathLike[str]) -> Any:
        if Path(path) == notes / "sub":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return listing(path)

    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(notes)
        monkeypatch.setattr(os, "scandir", scandir)
        report = rs.index(notes)
    assert report.removed == []
    assert [(file.id, file.reason) for file in report.skipped] == [
        ("notes/sub/", "a folder that cannot be read (Permission denied)")
    ]


def test_the_named_folder_that_cannot_be_listed_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = _notes(tmp_path)
    listing = os.scandir

    def scandir(path: str | os.PathLike[str]) -> Any:
        if Path(path) == notes:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return listing(path)

    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(notes)
        monkeypatch.setattr(os, "scandir", scandir)
        with pytest.raises(DocumentPathError, match="cannot be read"):
            rs.index(notes)
        monkeypatch.undo()
        assert set(rs.describe().sources) == {"notes/a.md", "notes/sub/b.md"}  # nothing lost


class _Unstatable:
    """A folder entry whose kind cannot be looked up (its `stat` fails, as on a file
    removed or a mount gone between the listing and the look)."""

    def __init__(self, entry: os.DirEntry[str]) -> None:
        self.name, self.path = entry.name, entry.path

    def is_symlink(self) -> bool:
        raise OSError(5, "Input/output error", self.path)

    def is_dir(self) -> bool:
        raise OSError(5, "Input/output error", self.path)


class _Listing(list[Any]):
    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def test_an_entry_that_cannot_be_looked_at_is_read_as_a_file_and_is_no_subfolder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk reads such an entry as a file (reading it then says what is wrong), and a
    folder that is its own root does not count it as a subfolder it mirrors."""
    notes = _notes(tmp_path)
    listing = os.scandir

    def scandir(path: str | os.PathLike[str]) -> Any:
        with listing(path) as entries:
            return _Listing(
                _Unstatable(entry) if entry.name == "a.md" else entry for entry in entries
            )

    monkeypatch.setattr(os, "scandir", scandir)
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        report = rs.index(notes, root=notes)
        assert report.skipped == []
        assert set(rs.describe().sources) == {"a.md", "sub/b.md"}
