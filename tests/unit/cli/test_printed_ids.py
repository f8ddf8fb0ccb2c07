"""An id stored before control characters were refused prints on its own line, escaped."""

from __future__ import annotations

import io
from pathlib import Path

from redstring import Redstring, SourceDocument
from redstring.cli.main import main
from redstring.client.answers import printable

#: What an older redstring accepted; built past today's check, as such a row was written.
OLD_ID = "two\nlines\x1b[31m.md"


def _run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), env={}, stdout=out, stderr=err)
    return status, out.getvalue() + err.getvalue()


def test_a_stored_id_holding_control_characters_prints_escaped_on_one_line(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "old.db")
    old = SourceDocument.model_construct(
        id=OLD_ID, text="Babbage built the engine.", title="", metadata={}
    )
    with Redstring(db, embeddings="none") as rs:
        rs.index([old])
    status, printed = _run("passages", "engine", "--db", db, "--embeddings", "none")
    assert status == 0, printed
    [row] = [line for line in printed.splitlines() if line.startswith("1. ")]
    assert row.endswith("two\\nlines\\x1b[31m.md #0")
    assert "\x1b" not in printed
    status, printed = _run("remove", OLD_ID, "--db", db)
    assert (status, printed) == (0, "removed two\\nlines\\x1b[31m.md (1 passage)\n")


def test_printable_text_is_printed_as_it_is() -> None:
    assert printable("notes/été 東京.md") == "notes/été 東京.md"
    assert printable("a\tb\x85") == "a\\tb\\x85"
