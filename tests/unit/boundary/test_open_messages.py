"""Each cause of a failed open has its own message saying what to do, through the real command.

Issue 14 items 6 and 9: an empty file and another application's SQLite file
both said "pass dimension=..." (Python advice the command line has no flag
for) and `index` could not initialise an empty file; a corrupt stored
setting surfaced `invalid literal for int()`; a table-name clash said
"retry"; a file that is not a database said "Nothing of the current batch
was written".
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from redstring.errors import (
    CorruptSettingError,
    DatabaseOpenError,
    DimensionRequiredError,
    ForeignDatabaseError,
)
from redstring.stores import open_sqlite
from tests.unit.cli.console import assert_one_error_line, redstring


def _document(folder: Path) -> Path:
    path = folder / "ada.txt"
    path.write_text("Ada Lovelace wrote the first program.\n", encoding="utf-8")
    return path


def _foreign(path: Path, table: str) -> Path:
    with sqlite3.connect(path) as connection:
        connection.execute(f"CREATE TABLE {table} (x)")
    return path


def test_index_initialises_an_empty_file_and_a_reader_says_to_write_first(
    tmp_path: Path,
) -> None:
    unread = tmp_path / "unread.db"
    unread.touch()
    line = assert_one_error_line(redstring("search", "Ada", "--db", str(unread)))
    assert "holds no redstring data yet" in line
    assert "index" in line
    assert unread.stat().st_size == 0

    empty = tmp_path / "empty.db"
    empty.touch()
    ran = redstring("index", str(_document(tmp_path)), "--db", str(empty))
    assert ran.status == 0, ran
    searched = redstring("search", "Ada", "--db", str(empty))
    assert searched.status == 0, searched
    assert "Ada" in searched.out


@pytest.mark.parametrize("table", ["notes", "graph_entities"])
def test_another_applications_file_is_named_and_never_written(tmp_path: Path, table: str) -> None:
    foreign = _foreign(tmp_path / "foreign.db", table)
    for argv in (["index", str(_document(tmp_path))], ["search", "Ada"]):
        line = assert_one_error_line(redstring(*argv, "--db", str(foreign)))
        assert "another application" in line
        assert table in line
        assert "retry" not in line
        assert "dimension=" not in line
    with sqlite3.connect(foreign) as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master")]
    assert names == [table]


def test_a_corrupt_stored_dimension_is_named_not_an_int_parse_error(tmp_path: Path) -> None:
    db = tmp_path / "corrupt.db"
    assert redstring("index", str(_document(tmp_path)), "--db", str(db)).status == 0
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE redstring_settings SET value = 'abc' WHERE name = 'dimension'")
    for argv in (["search", "Ada"], ["stats"], ["index", str(_document(tmp_path))]):
        line = assert_one_error_line(redstring(*argv, "--db", str(db)))
        assert "records vector dimension = 'abc'" in line
        assert "invalid literal" not in line
        assert "backup" in line


def test_a_file_that_is_not_a_database_is_an_open_error_not_a_lost_batch(tmp_path: Path) -> None:
    db = tmp_path / "text.db"
    db.write_text("not a database at all, just some text long enough to have a header\n" * 4)
    line = assert_one_error_line(redstring("search", "Ada", "--db", str(db)))
    assert "could not open" in line
    assert "batch" not in line


def test_open_sqlite_raises_one_class_per_cause(tmp_path: Path) -> None:
    with pytest.raises(ForeignDatabaseError):
        open_sqlite(_foreign(tmp_path / "f.db", "notes"), dimension=8)
    (tmp_path / "e.db").touch()
    with pytest.raises(DimensionRequiredError):
        open_sqlite(tmp_path / "e.db")
    (tmp_path / "t.db").write_text("text " * 40)
    with pytest.raises(DatabaseOpenError):
        open_sqlite(tmp_path / "t.db", dimension=8)
    missing = tmp_path / "new.db"
    with pytest.raises(DimensionRequiredError):
        open_sqlite(missing)
    assert not missing.exists()
    corrupt = tmp_path / "c.db"
    stores = open_sqlite(corrupt, dimension=8)
    stores.database.close()
    with sqlite3.connect(corrupt) as connection:
        connection.execute("UPDATE redstring_settings SET value = '-3' WHERE name = 'dimension'")
    with pytest.raises(CorruptSettingError):
        open_sqlite(corrupt)
    with pytest.raises(CorruptSettingError):
        open_sqlite(corrupt, dimension=8)
