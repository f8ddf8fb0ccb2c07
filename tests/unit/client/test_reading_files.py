"""The one reader of files: what a folder's walk skips, and how a file's text is decoded.

A pipe or a link to a device inside a folder is skipped and reported like a
file that does not decode, never opened: opening a pipe waits for a writer
forever, and reading a device such as /dev/zero never ends. The pipe here
has a writer waiting (`tests/unit/pipes.py`), so code that opens it anyway
reads nothing and the test fails instead of hanging.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from redstring import Redstring
from redstring.client.documents import read_documents
from redstring.errors import InvalidArgumentError, ModelServerUnreachableError
from tests.unit.pipes import watched_pipe

needs_pipes = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
needs_dev_null = pytest.mark.skipif(
    sys.platform == "win32" or not os.path.exists("/dev/null"), reason="needs /dev/null"
)


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# Ada\n\nAda wrote the notes.\n", encoding="utf-8")
    return folder


@needs_pipes
def test_a_pipe_in_a_folder_is_skipped_and_named_without_being_opened(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    with watched_pipe(folder / "pipe.md") as pipe:
        read = read_documents([folder])
        assert not pipe.opened
    assert [document.id for document in read.documents] == ["notes/a.md"]
    [skipped] = read.skipped
    assert skipped.id == "notes/pipe.md"
    assert skipped.reason == "a pipe or socket, not a regular file"


@needs_dev_null
def test_a_link_to_a_device_in_a_folder_is_skipped_and_named(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "null.md").symlink_to("/dev/null")
    read = read_documents([folder])
    assert [document.id for document in read.documents] == ["notes/a.md"]
    assert [(file.id, file.reason) for file in read.skipped] == [
        ("notes/null.md", "a link to a device, not a regular file")
    ]


def test_a_link_to_a_regular_file_in_a_folder_is_still_read(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (tmp_path / "elsewhere.md").write_text("Babbage built the engine.", encoding="utf-8")
    (folder / "b.md").symlink_to(tmp_path / "elsewhere.md")
    read = read_documents([folder])
    assert [(d.id, d.text) for d in read.documents][1:] == [
        ("notes/b.md", "Babbage built the engine.")
    ]
    assert read.skipped == []


@pytest.mark.parametrize(
    ("encoding", "written"),
    [("utf-8", "utf-8"), ("UTF8", "utf-8"), ("utf-16-le", "utf-16-le"), ("utf-16", "utf-16-be")],
)
def test_a_leading_byte_order_mark_is_not_part_of_the_text(
    tmp_path: Path, encoding: str, written: str
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_bytes("\ufeff# Ada\n\nbom start word\n".encode(written))
    [document] = read_documents([folder], encoding=encoding).documents
    assert document.text == "# Ada\n\nbom start word\n"
    assert document.title == "Ada"


def test_a_byte_order_mark_inside_the_text_stays(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes("\ufeffone\ufefftwo".encode())
    [document] = read_documents([path]).documents
    assert document.text == "one\ufefftwo"


def test_index_stores_no_byte_order_mark_in_a_passage(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_bytes(b"\xef\xbb\xbfbom start word\n")
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(folder)
        [hit] = rs.passages("bom start", k=1).matches
    assert hit.text == "bom start word"
    assert hit.start == 0


@needs_pipes
def test_build_skips_a_pipe_in_a_folder_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = _folder(tmp_path)
    with (
        watched_pipe(folder / "pipe.md") as pipe,
        Redstring(tmp_path / "x.db", embeddings="none") as rs,
        caplog.at_level(logging.WARNING, logger="redstring"),
    ):
        # Nothing listens on port 9: the server check comes after the files are read.
        with pytest.raises(ModelServerUnreachableError):
            rs.build(folder, model="m", base_url="http://127.0.0.1:9/v1")
        assert not pipe.opened
    assert "skipped notes/pipe.md: a pipe or socket, not a regular file" in caplog.text


def _regular_until_opened(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """`os.stat` of `path` says a regular file, as it did before something took its place."""
    regular = os.stat(__file__)
    real = os.stat

    def stat(target: str | os.PathLike[str], *args: Any, **kwargs: Any) -> os.stat_result:
        if os.fspath(target) == os.fspath(path):
            return regular
        return real(target, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)


@needs_pipes
def test_a_pipe_put_in_a_file_s_place_after_its_check_is_refused_once_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opened without waiting and checked again, it is skipped, never read."""
    folder = _folder(tmp_path)
    with watched_pipe(folder / "swapped.md") as pipe:
        _regular_until_opened(monkeypatch, pipe.path)
        read = read_documents([folder])
    assert [d.id for d in read.documents] == ["notes/a.md"]
    assert [(s.id, s.reason) for s in read.skipped] == [
        ("notes/swapped.md", "a pipe or socket, not a regular file")
    ]


def test_a_folder_put_in_a_file_s_place_after_its_check_is_named_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path)
    named = folder / "b.md"
    named.write_text("Babbage.", encoding="utf-8")
    _regular_until_opened(monkeypatch, named)
    named.unlink()
    named.mkdir()
    read = read_documents([named], allow_empty=True)
    assert read.documents == []
    assert [(s.id, s.reason) for s in read.skipped] == [("b.md", "a folder, not a regular file")]


@pytest.mark.skipif(sys.platform == "win32", reason="needs a newline in a file name")
def test_a_file_whose_name_holds_a_control_character_is_skipped_and_named(
    tmp_path: Path,
) -> None:
    """Its id would hold the newline, which every listing of ids prints as a line break."""
    folder = _folder(tmp_path)
    (folder / "two\nlines.md").write_text("Babbage.", encoding="utf-8")
    read = read_documents([folder])
    assert [document.id for document in read.documents] == ["notes/a.md"]
    [skipped] = read.skipped
    assert skipped.id == "notes/two\nlines.md"
    assert "control character '\\n'" in skipped.reason


@pytest.mark.parametrize("how", ["model_copy", "assignment"])
def test_an_id_changed_past_the_constructor_is_refused_by_index_and_build(
    tmp_path: Path, how: str
) -> None:
    from redstring import Redstring, SourceDocument  # noqa: PLC0415 (this test's own)
    from redstring.providers import FakeLlmProvider  # noqa: PLC0415

    document = SourceDocument(id="ok", text="Ada wrote the first program.")
    if how == "model_copy":
        document = document.model_copy(update={"id": "evil\nid\x1b[31mRED"})
    else:
        document.id = "assigned\nid"
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        with pytest.raises(InvalidArgumentError, match="control character") as refused:
            rs.index([document])
        assert refused.value.name == "documents[0].id"
        with pytest.raises(InvalidArgumentError, match="control character"):
            rs.build([document], model=FakeLlmProvider(), domain="general")
        assert rs.describe().sources == {}


@pytest.mark.skipif(sys.platform != "linux", reason="needs file names of any bytes")
def test_a_file_whose_name_is_not_utf8_is_skipped_named_printably_and_the_rest_read(
    tmp_path: Path,
) -> None:
    """A Latin-1 name from an old archive: no document id can hold it, so it is skipped."""
    folder = _folder(tmp_path)
    with open(os.fsencode(folder) + b"/caf\xe9.md", "w", encoding="utf-8") as file:
        file.write("Beavers.")
    read = read_documents([folder])
    assert [document.id for document in read.documents] == ["notes/a.md"]
    [skipped] = read.skipped
    assert skipped.id == "notes/caf\\xe9.md"
    assert skipped.id.isprintable()
    assert skipped.reason == (
        "its name is not UTF-8 text (the bytes shown as \\x..), which a document id "
        "must be; rename it"
    )
