"""An id stored before control characters were refused prints on its own line, escaped."""

from __future__ import annotations

import asyncio
import io
import unicodedata
from pathlib import Path

from redstring import Redstring, SourceDocument
from redstring.cli.main import main
from redstring.client.answers import (
    EntityAnswer,
    EntityDetail,
    Neighbour,
    print_passages,
    printable,
)
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


#: A passage written to drive a terminal: a title change, a screen clear, colours, a NUL (which
#: the chunker reads as a space), a C1 control sequence introducer, and a tab and line breaks,
#: which print as spaces.
HOSTILE = (
    "Harmless note about llamas \x1b]0;PWNED\x07 and \x1b[2J\x1b[31mred\x1b[0m, a NUL\x00here,"
    " a \x9b2J there,\ta tab and\r\nlines."
)


def _no_control_but_line_breaks(printed: str) -> None:
    assert [c for c in printed if unicodedata.category(c) == "Cc" and c != "\n"] == []


def test_a_passage_that_would_drive_the_terminal_prints_escaped(tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    with Redstring(db, embeddings="none") as rs:
        rs.index([SourceDocument(id="evil.md", text=HOSTILE)])
        answer = rs.passages("llamas")
        shown = io.StringIO()
        print_passages(answer, shown, width=400)
        for printed in (str(answer), repr(answer), shown.getvalue()):
            _no_control_but_line_breaks(printed)
        # The data is the passage as indexed, its NUL read as a space.
        assert answer.matches[0].text == HOSTILE.replace("\x00", " ")
    window = shown.getvalue().splitlines()[2].strip()
    assert window == (
        "Harmless note about **llamas** \\x1b]0;PWNED\\x07 and \\x1b[2J\\x1b[31mred\\x1b[0m, a "
        "NUL here, a \\x9b2J there, a tab and lines."
    )
    status, printed = _run("passages", "llamas", "--db", db, "--embeddings", "none")
    assert status == 0, printed
    _no_control_but_line_breaks(printed)
    assert "\\x1b]0;PWNED\\x07" in printed


def test_an_entity_that_would_drive_the_terminal_prints_escaped() -> None:
    """An entity's description comes from a model's answer, and its names from the text."""
    entity = EntityDetail(
        id="e1", name="Ada\x1b[31m", type="person", description="wrote\x1b]0;PWNED\x07 notes",
        aliases=[], properties={}, confidence=1.0, source_document_ids=[],
    )  # fmt: skip
    neighbour = Neighbour(
        relationship_id="r1", relationship_type="knows\x00", direction="outgoing",
        description="", confidence=1.0, entity_id="e2", name="Bab\x9bbage", type="person\x07",
    )  # fmt: skip
    printed = str(EntityAnswer(tenant_id="t", entity=entity, neighbours=[neighbour]))
    _no_control_but_line_breaks(printed)
    assert printed == (
        "Ada\\x1b[31m (person) e1\n  wrote\\x1b]0;PWNED\\x07 notes\n"
        "  -> knows\\x00 Bab\\x9bbage (person\\x07)"
    )
