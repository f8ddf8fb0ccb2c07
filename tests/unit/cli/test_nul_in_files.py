"""`redstring index` of a folder whose text file holds a stray NUL byte: SQLite and PostgreSQL.

The file decodes, so it is read; SQLite stored its passage with the NUL (and
`passages` printed it raw to the terminal) while PostgreSQL failed the run.
Now the NUL is read as a space on both: the run indexes every file, the same
folder indexed again is unchanged, and the words on both sides of the NUL are
found, in each tenant only its own.
"""

from __future__ import annotations

from pathlib import Path
from uuid import uuid4

import pytest

from tests.unit.cli.console import redstring

LEXICAL = ["--embeddings", "none"]


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return str(tmp_path / "nul.db")


def test_a_file_with_a_stray_nul_is_indexed_and_found_alike_on_sqlite_and_postgres(
    db: str, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("Ada Lovelace kept notes.\n")
    (folder / "b.txt").write_bytes(b"Bob\x00Smith wrote the ledger.\x00\n")
    first, second = f"nul-{uuid4().hex}", f"nul-{uuid4().hex}"  # the PostgreSQL database is shared
    indexed = redstring("index", str(folder), "--db", db, "--tenant", first, *LEXICAL)
    again = redstring("index", str(folder), "--db", db, "--tenant", first, *LEXICAL)
    found = redstring("passages", "smith", "--db", db, "--tenant", first, "--mode", "lexical")
    other = redstring("passages", "smith", "--db", db, "--tenant", second, "--mode", "lexical")
    assert indexed.status == 0, indexed.err
    assert "indexed 2 documents: 2 chunks written, 0 documents unchanged" in indexed.out
    assert again.status == 0, again.err
    assert "indexed 2 documents: 0 chunks written, 2 documents unchanged" in again.out
    assert found.status == 0, found.err
    assert "notes/b.txt #0" in found.out
    assert "Bob **Smith** wrote the ledger." in found.out
    assert "\x00" not in found.out
    assert other.status == 0, other.err
    assert "notes/b.txt" not in other.out
