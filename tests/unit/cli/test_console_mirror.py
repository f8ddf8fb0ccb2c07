"""`redstring index` mirrors a folder indexed again; `redstring remove` takes a document out.

Each test runs the console script in a subprocess, lexical only (no model).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.cli.console import assert_one_error_line, redstring

NONE = ["--embeddings", "none", "--quiet"]


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "a.md").write_text("# Ada\n\nAda Lovelace wrote the first program.\n")
    (corpus / "sub" / "b.txt").write_text("Grace Hopper wrote the first compiler.\n")
    return corpus


def _sources(db: Path, cwd: Path, *tenant: str) -> list[str]:
    ran = redstring("stats", "--db", str(db), *tenant, "--json", cwd=cwd)
    assert ran.status == 0, ran.err
    shown = redstring("passages", "first", "--db", str(db), *tenant, "--json", "-k", "10",
                      "--embeddings", "none", cwd=cwd)  # fmt: skip
    assert shown.status == 0, shown.err
    return sorted(hit["source_id"] for hit in json.loads(shown.out)["matches"])


def test_a_deleted_file_leaves_the_index_and_keep_missing_keeps_it(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    db = tmp_path / "x.db"
    assert redstring("index", "corpus", "--db", str(db), *NONE, cwd=tmp_path).status == 0
    (corpus / "sub" / "b.txt").unlink()
    kept = redstring("index", "corpus", "--db", str(db), "--keep-missing", *NONE, cwd=tmp_path)
    assert kept.status == 0, kept.err
    assert "removed" not in kept.out
    assert _sources(db, tmp_path) == ["corpus/a.md", "corpus/sub/b.txt"]
    mirrored = redstring("index", "corpus", "--db", str(db), *NONE, cwd=tmp_path)
    assert mirrored.status == 0, mirrored.err
    assert mirrored.out.rstrip().endswith(", 1 document removed (corpus/sub/b.txt)")
    assert _sources(db, tmp_path) == ["corpus/a.md"]


def test_remove_takes_one_document_out_of_its_tenant_only(tmp_path: Path) -> None:
    _corpus(tmp_path)
    db = tmp_path / "x.db"
    for tenant in ("default", "other"):
        indexed = redstring("index", "corpus", "--db", str(db), "--tenant", tenant, *NONE,
                            cwd=tmp_path)  # fmt: skip
        assert indexed.status == 0, indexed.err
    removed = redstring("remove", "corpus/a.md", "--db", str(db), cwd=tmp_path)
    assert removed.status == 0, removed.err
    assert removed.out == "removed corpus/a.md (1 passage)\n"
    assert _sources(db, tmp_path) == ["corpus/sub/b.txt"]
    assert _sources(db, tmp_path, "--tenant", "other") == ["corpus/a.md", "corpus/sub/b.txt"]
    again = redstring("remove", "corpus/a.md", "--db", str(db), cwd=tmp_path)
    line = assert_one_error_line(again)
    assert line.startswith("redstring: error: DOCUMENT corpus/a.md: not in this tenant")
    assert line.endswith("this tenant holds corpus/sub/b.txt.")


def test_a_folder_indexed_as_its_own_root_leaves_another_folders_documents(
    tmp_path: Path,
) -> None:
    for folder, text in (("rA", "apple aardvark"), ("rB", "banana bison")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / f"{folder[1].lower()}.md").write_text(f"{text}\n")
    db = tmp_path / "x.db"
    assert redstring("index", "rA", "--db", str(db), *NONE, cwd=tmp_path).status == 0
    second = redstring("index", "rB", "--root", "rB", "--db", str(db), *NONE, cwd=tmp_path)
    assert second.status == 0, second.err
    assert "removed" not in second.out
    found = redstring("passages", "aardvark", "--db", str(db), "--json", "--embeddings", "none",
                      cwd=tmp_path)  # fmt: skip
    assert [hit["source_id"] for hit in json.loads(found.out)["matches"]] == ["rA/a.md"]


def test_a_folder_whose_last_file_left_is_mirrored_and_a_new_empty_one_is_an_error(
    tmp_path: Path,
) -> None:
    (tmp_path / "ef").mkdir()
    (tmp_path / "ef" / "a.md").write_text("narwhal\n")
    db = tmp_path / "ef.db"
    assert redstring("index", "ef", "--db", str(db), *NONE, cwd=tmp_path).status == 0
    (tmp_path / "ef" / "a.md").unlink()
    mirrored = redstring("index", "ef", "--db", str(db), *NONE, cwd=tmp_path)
    assert mirrored.status == 0, mirrored.err
    assert mirrored.out.rstrip().endswith(", 1 document removed (ef/a.md)")
    assert _sources(db, tmp_path) == []
    again = redstring("index", "ef", "--db", str(db), *NONE, cwd=tmp_path)
    assert "no .txt, .md or .markdown file found under ef" in assert_one_error_line(again)
    # An empty folder into a database that does not exist: an error, and no file left.
    fresh = redstring("index", "ef", "--db", str(tmp_path / "new.db"), *NONE, cwd=tmp_path)
    assert "nothing to do" in assert_one_error_line(fresh)
    assert not (tmp_path / "new.db").exists()


def test_a_file_emptied_is_reported_removed(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    db = tmp_path / "x.db"
    assert redstring("index", "corpus", "--db", str(db), *NONE, cwd=tmp_path).status == 0
    (corpus / "a.md").write_text("")
    emptied = redstring("index", "corpus", "--db", str(db), *NONE, cwd=tmp_path)
    assert emptied.status == 0, emptied.err
    assert emptied.out == (
        "indexed 2 documents: 0 chunks written, 1 document unchanged, 0 chunks embedded, "
        "1 document empty (nothing to index), 1 document removed (corpus/a.md)\n"
    )
    assert _sources(db, tmp_path) == ["corpus/sub/b.txt"]


def test_a_subfolder_keeps_the_whole_folders_ids_under_the_root_holding_it(
    tmp_path: Path,
) -> None:
    """What the command-line how-to says: `--root .` keeps the ids, `--root corpus` does not."""
    corpus = _corpus(tmp_path)
    db = tmp_path / "x.db"
    assert redstring("index", "corpus", "--db", str(db), *NONE, cwd=tmp_path).status == 0
    (corpus / "a.md").unlink()  # outside the subfolder named: left alone
    same = redstring("index", "corpus/sub", "--root", ".", "--db", str(db), *NONE, cwd=tmp_path)
    assert same.out == (
        "indexed 1 document: 0 chunks written, 1 document unchanged, 0 chunks embedded\n"
    )
    assert _sources(db, tmp_path) == ["corpus/a.md", "corpus/sub/b.txt"]
    other = redstring("index", "corpus/sub", "--root", "corpus", "--db", str(db), *NONE,
                      cwd=tmp_path)  # fmt: skip
    assert other.status == 0, other.err
    assert _sources(db, tmp_path) == ["corpus/a.md", "corpus/sub/b.txt", "sub/b.txt"]
