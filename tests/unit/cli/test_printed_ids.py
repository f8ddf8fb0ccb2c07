"""An id stored before control characters were refused prints on its own line, escaped."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from redstring import Redstring, SourceDocument
from redstring.cli.main import main
from redstring.client.answers import printable
from redstring.client.tenants import DEFAULT_TENANT
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunk import StoredChunk

#: What an older redstring accepted; built past today's check, as such a row was written.
OLD_ID = "two\nlines\x1b[31m.md"


async def _store_an_old_passage(db: str) -> None:
    """A passage of `OLD_ID` in the default tenant, written as an older redstring wrote it:
    today every public way in refuses the id."""
    text = "Babbage built the engine."
    row = {"tenant_id": DEFAULT_TENANT, "source_id": OLD_ID, "text": text, "index": 0,
           "start": 0, "end": len(text)}  # fmt: skip
    async with open_sqlite(db) as stores:
        chunk = StoredChunk.model_validate(row)
        await stores.chunks.replace_source(OLD_ID, DEFAULT_TENANT, [chunk])


def _run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), env={}, stdout=out, stderr=err)
    return status, out.getvalue() + err.getvalue()


def test_a_stored_id_holding_control_characters_prints_escaped_on_one_line(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "old.db")
    with Redstring(db, embeddings="none") as rs:
        rs.index([SourceDocument(id="other.md", text="Lovelace wrote notes.")])
    asyncio.run(_store_an_old_passage(db))
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
