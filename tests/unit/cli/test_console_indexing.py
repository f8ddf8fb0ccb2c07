"""`redstring index` as a user runs it: bad files skipped, ids fixed by the folder, odd paths named.

Each test runs the console script in a subprocess, lexical only (no model).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from redstring import Redstring
from tests.unit.cli.console import assert_one_error_line, redstring

NONE = ["--embeddings", "none"]


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "a.md").write_text("# Ada\n\nAda Lovelace wrote the first program.\n")
    (corpus / "sub" / "b.txt").write_text("Grace Hopper wrote the first compiler.\n")
    return corpus


def _source_ids(db: Path, cwd: Path) -> list[str]:
    ran = redstring("passages", "first", "--db", str(db), "--json", "-k", "10", *NONE, cwd=cwd)
    assert ran.status == 0, ran.err
    return sorted(hit["source_id"] for hit in json.loads(ran.out)["matches"])


def test_a_file_that_does_not_decode_is_skipped_and_named_and_encoding_reads_it(
    tmp_path: Path,
) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "latin.txt").write_bytes("Caf\xe9 notes by Ada.".encode("latin-1"))
    db = tmp_path / "x.db"
    ran = redstring("index", "corpus", "--db", str(db), "--quiet", *NONE, cwd=tmp_path)
    assert ran.status == 0, ran.err
    assert ran.out == (
        "indexed 2 documents: 2 chunks written, 0 documents unchanged, "
        "0 chunks embedded, 1 file skipped\n"
    )
    [warning] = ran.err.splitlines()
    assert warning.startswith("redstring: warning: skipped corpus/latin.txt: not utf-8 text")
    assert "pass --encoding" in warning
    latin = redstring(
        "index", "corpus/latin.txt", "--root", ".", "--db", str(db), "--encoding", "latin-1",
        "--quiet", *NONE, cwd=tmp_path,
    )  # fmt: skip
    assert latin.out.startswith("indexed 1 document: 1 chunk written"), latin.err
    found = redstring("passages", "Café notes", "--db", str(db), "--json", *NONE)
    assert [hit["source_id"] for hit in json.loads(found.out)["matches"]][:1] == [
        "corpus/latin.txt"
    ]


def test_empty_and_blank_files_are_reported_empty_not_unchanged(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("Ada Lovelace wrote the first program.\n")
    (corpus / "empty.md").write_text("")
    (corpus / "blank.txt").write_text("  \n\n\t\n")
    db = tmp_path / "x.db"
    for _ in range(2):
        ran = redstring("index", "corpus", "--db", str(db), "--quiet", *NONE, cwd=tmp_path)
        assert ran.status == 0, ran.err
        tail = "0 chunks embedded, 2 documents empty (nothing to index)\n"
        assert ran.out.endswith(tail), ran.out
    assert ran.out.startswith("indexed 3 documents: 0 chunks written, 1 document unchanged, ")


def test_the_same_folder_indexed_from_another_directory_is_found_unchanged(
    tmp_path: Path,
) -> None:
    corpus = _corpus(tmp_path)
    elsewhere = tmp_path / "elsewhere" / "deeper"
    elsewhere.mkdir(parents=True)
    db = tmp_path / "x.db"
    first = redstring("index", "corpus", "--db", str(db), "--quiet", *NONE, cwd=tmp_path)
    again = redstring("index", str(corpus), "--db", str(db), "--quiet", *NONE, cwd=elsewhere)
    assert first.status == 0, first.err
    assert again.out.startswith("indexed 2 documents: 0 chunks written, 2 documents unchanged")
    assert _source_ids(db, elsewhere) == ["corpus/a.md", "corpus/sub/b.txt"]


def test_root_fixes_ids_for_a_subfolder_and_refuses_a_path_outside_it(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    db = tmp_path / "x.db"
    whole = redstring("index", "corpus", "--root", "corpus", "--db", str(db), "--quiet", *NONE,
                      cwd=tmp_path)  # fmt: skip
    part = redstring("index", "sub", "--root", ".", "--db", str(db), "--quiet", *NONE,
                     cwd=corpus)  # fmt: skip
    assert whole.status == 0, whole.err
    assert part.out.startswith("indexed 1 document: 0 chunks written, 1 document unchanged")
    assert _source_ids(db, tmp_path) == ["a.md", "sub/b.txt"]
    outside = redstring("index", str(tmp_path), "--root", "corpus", "--db", str(db), *NONE,
                        cwd=tmp_path)  # fmt: skip
    line = assert_one_error_line(outside)
    assert f"{tmp_path}: not under --root {corpus}" in line


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_a_path_that_is_neither_a_file_nor_a_folder_has_its_own_line(tmp_path: Path) -> None:
    ran = redstring("index", "/dev/null", "--db", str(tmp_path / "x.db"), *NONE)
    line = assert_one_error_line(ran)
    assert line.startswith(
        "redstring: error: /dev/null: exists but is a device, not a regular file or folder."
    )
    missing = assert_one_error_line(redstring("index", str(tmp_path / "nope"), *NONE))
    assert "nope: no such file or folder" in missing
    assert not (tmp_path / "x.db").exists()


def test_the_clients_take_root_and_encoding_and_report_what_they_skipped(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "latin.txt").write_bytes("Caf\xe9 notes.".encode("latin-1"))
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        report = rs.index(corpus)
        assert [(file.id, file.reason[:15]) for file in report.skipped] == [
            ("corpus/latin.txt", "not utf-8 text ")
        ]
        again = rs.index(corpus / "latin.txt", root=tmp_path, encoding="latin-1")
        assert (again.documents, again.skipped) == (1, [])
        ids = sorted(row["source_id"] for row in rs.passages("notes Ada Grace", k=9).to_dicts())
    assert ids == ["corpus/a.md", "corpus/latin.txt", "corpus/sub/b.txt"]


def test_language_chooses_the_analysis_of_a_new_database_which_then_keeps_it(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("The engines were running all night.\n")
    db = tmp_path / "x.db"
    ran = redstring("index", "corpus", "--db", str(db), "--quiet", "--language", "none", *NONE,
                    cwd=tmp_path)  # fmt: skip
    assert ran.status == 0, ran.err

    def hits(query: str) -> list[str]:
        found = redstring("passages", query, "--db", str(db), "--json", *NONE)
        assert found.status == 0, found.err
        return [hit["source_id"] for hit in json.loads(found.out)["matches"]]

    assert hits("engines running") == ["corpus/a.md"]  # the words as written
    assert hits("engine runs") == []  # no stemming
    refused = redstring("passages", "engines", "--db", str(db), "--language", "english", *NONE)
    line = assert_one_error_line(refused)
    assert "language='none'" in line
    assert "language='english'" in line
    unknown = redstring("passages", "x", "--db", str(db), "--language", "klingon", *NONE)
    assert "--language" in assert_one_error_line(unknown, status=2)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_subfolder_linked_back_from_elsewhere_stays_and_a_looping_link_is_named(
    tmp_path: Path,
) -> None:
    corpus = _corpus(tmp_path)
    db = str(tmp_path / "x.db")
    assert redstring("index", "corpus", "--db", db, "--quiet", *NONE, cwd=tmp_path).status == 0
    (tmp_path / "disk").mkdir()
    (corpus / "sub").rename(tmp_path / "disk" / "sub")
    (corpus / "sub").symlink_to(Path("..") / "disk" / "sub")
    (corpus / "sub" / "again").symlink_to(".")
    ran = redstring("index", "corpus", "--db", db, "--quiet", *NONE, cwd=tmp_path)
    assert ran.status == 0, ran.err
    assert ran.out == (
        "indexed 2 documents: 0 chunks written, 2 documents unchanged, "
        "0 chunks embedded, 1 folder skipped\n"
    )
    assert ran.err == (
        "redstring: warning: skipped corpus/sub/again/: a link to corpus/sub/, which holds "
        "it: not followed, it would loop\n"
    )
    assert _source_ids(Path(db), tmp_path) == ["corpus/a.md", "corpus/sub/b.txt"]


@pytest.mark.skipif(sys.platform != "linux", reason="needs file names of any bytes")
def test_a_file_name_that_is_not_utf8_is_skipped_and_the_rest_indexed(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    db = str(tmp_path / "x.db")
    assert redstring("index", "corpus", "--db", db, "--quiet", *NONE, cwd=tmp_path).status == 0
    (corpus / "a.md").write_text("# Ada\n\nAda Lovelace wrote the first seal program.\n")
    with open(os.fsencode(corpus) + b"/caf\xe9.md", "w", encoding="utf-8") as file:
        file.write("A Latin-1 name about beavers.\n")
    ran = redstring("index", "corpus", "--db", db, "--quiet", *NONE, cwd=tmp_path)
    assert ran.status == 0, ran.err
    assert ran.out == (
        "indexed 2 documents: 1 chunk written, 1 document unchanged, "
        "0 chunks embedded, 1 file skipped\n"
    )
    assert ran.err == (
        "redstring: warning: skipped corpus/caf\\xe9.md: its name is not UTF-8 text (the "
        "bytes shown as \\x..), which a document id must be; rename it\n"
    )
    found = redstring("passages", "seal", "--db", db, "--json", *NONE, cwd=tmp_path)
    assert [hit["source_id"] for hit in json.loads(found.out)["matches"]] == ["corpus/a.md"]
