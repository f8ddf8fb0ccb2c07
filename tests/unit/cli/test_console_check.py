"""`redstring check` and the client's `check()` on a file damaged through sqlite3 (issue 27).

Every damaged row is listed, the exit status is 3 when one is found (0 for a
sound file), nothing is changed; a command reading a damaged row fails with
one line naming it instead of a raw `zlib.error`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from pathlib import Path

import pytest

import redstring.graph.sqlite as sqlite_graph
from redstring import Entity, Redstring
from redstring.client.tenants import DEFAULT_TENANT
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.blocking import KEY_VERSION
from redstring.ports import DocumentChunked
from tests.unit.cli.console import assert_one_error_line, redstring

NONE = ["--embeddings", "none"]


def _indexed(tmp_path: Path) -> str:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Ada Lovelace wrote notes on the Analytical Engine.\n")
    (folder / "b.md").write_text("Grace Hopper wrote the first compiler.\n")
    db = str(tmp_path / "t.db")
    with Redstring(db, embeddings="none") as rs:
        rs.index(folder)
    return db


def _damage(db: str) -> list[str]:
    """Flip a byte of one chunk body and cut one postings block; the chunk ids damaged."""
    with contextlib.closing(sqlite3.connect(db)) as raw:
        chunk_id, body = raw.execute(
            "SELECT chunk_id, body FROM chunk_texts ORDER BY chunk_id LIMIT 1"
        ).fetchone()
        flipped = bytearray(body)
        flipped[len(flipped) // 2] ^= 0x5A
        raw.execute(
            "UPDATE chunk_texts SET body = ? WHERE chunk_id = ?", (bytes(flipped), chunk_id)
        )
        raw.execute(  # the first term's block, cut to 3 bytes: no block is that short
            "UPDATE chunk_posting_blocks SET postings = substr(postings, 1, 3)"
            " WHERE (tenant, term, block) = (SELECT tenant, term, block"
            " FROM chunk_posting_blocks ORDER BY term LIMIT 1)"
        )
        raw.commit()
    return [chunk_id]


def test_check_lists_every_damaged_row_and_exits_3_and_a_sound_file_exits_0(
    tmp_path: Path,
) -> None:
    db = _indexed(tmp_path)
    sound = redstring("check", "--db", db)
    assert sound.status == 0, sound.err
    assert sound.out.endswith(": 0 damaged rows\n")
    [chunk_id] = _damage(db)
    with contextlib.closing(sqlite3.connect(db)) as raw:
        before = raw.execute("SELECT * FROM chunk_texts ORDER BY chunk_id").fetchall()
    found = redstring("check", "--db", db)
    assert found.status == 3, found.err
    lines = [line for line in found.out.splitlines() if line.startswith("damaged: ")]
    assert len(lines) == 2
    assert any("chunk_texts: tenant " in line and chunk_id in line for line in lines)
    assert any(line.startswith("damaged: chunk_posting_blocks: ") for line in lines)
    assert ": 2 damaged rows" in found.out
    as_json = json.loads(redstring("check", "--db", db, "--json").out)
    assert sorted(row["table"] for row in as_json["damaged"]) == [
        "chunk_posting_blocks",
        "chunk_texts",
    ]
    with contextlib.closing(sqlite3.connect(db)) as raw:
        assert raw.execute("SELECT * FROM chunk_texts ORDER BY chunk_id").fetchall() == before
    with Redstring(db, embeddings="none") as rs:
        report = rs.check()
    assert not report.ok
    assert report.checked == [
        "SqliteGraphStore",
        "SqliteVectorStore",
        "SqliteChunkStore",
        "SqliteEventLog",
    ]
    assert sorted(row.table for row in report.damaged) == ["chunk_posting_blocks", "chunk_texts"]


def test_a_fresh_index_of_identifiers_paths_and_initials_is_sound(tmp_path: Path) -> None:
    """Compound terms (ADR 0490) are left out of a chunk's length; `check` counts alike."""
    folder = tmp_path / "ids"
    folder.mkdir()
    (folder / "a.md").write_text("Use chunk_store here.\n")
    (folder / "b.md").write_text(
        "The U.S.A. calls os.path.join on docs/how-to/build_policy.md,\n"
        "see https://example.com/api_v2/search?q=max_connections and max_connections.\n"
    )
    db = str(tmp_path / "ids.db")
    indexed = redstring("index", str(folder), "--db", db, *NONE)
    assert indexed.status == 0, indexed.err
    found = redstring("check", "--db", db)
    assert found.status == 0, found.out
    assert found.out.endswith(": 0 damaged rows\n")


def test_a_command_reading_a_damaged_row_fails_with_one_line_naming_it(tmp_path: Path) -> None:
    db = _indexed(tmp_path)
    _damage(db)
    line = assert_one_error_line(redstring("passages", "Ada notes Grace", "--db", db, *NONE))
    assert line.startswith("redstring: error: SqliteChunkStore(")
    assert ": damaged (" in line
    assert "redstring check" in line


def test_check_reads_a_file_whose_stores_lag_its_log_as_it_is(tmp_path: Path) -> None:
    """Other read-only commands fold a lagging log first (B132); `check` writes nothing."""
    db = tmp_path / "lagging.db"

    async def appended() -> None:  # events the stores never folded, as after a crash
        async with open_sqlite(db, dimension=4) as stores:
            await stores.events.append(
                [
                    DocumentChunked(tenant_id=DEFAULT_TENANT, document_id=f"d{n}", chunks=[])
                    for n in range(3)
                ]
            )

    asyncio.run(appended())
    with contextlib.closing(sqlite3.connect(db)) as raw:
        raw.execute("UPDATE event_log SET body = '!' || substr(body, 2) WHERE sequence = 2")
        raw.commit()
        positions = raw.execute("SELECT * FROM projection_position").fetchall()
    found = redstring("check", "--db", str(db))
    assert found.status == 3, found.err
    assert "damaged: event_log: tenant " in found.out
    assert "event 2: its JSON does not read" in found.out
    with contextlib.closing(sqlite3.connect(db)) as raw:
        assert raw.execute("SELECT * FROM projection_position").fetchall() == positions


def test_check_names_a_tenant_keyed_under_an_older_scheme_until_it_is_rekeyed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _indexed(tmp_path)
    moskva = Entity(tenant_id=DEFAULT_TENANT, entity_type="city", name="Москва")

    async def filed_by_the_previous_release() -> None:
        with monkeypatch.context() as old_code:
            old_code.setattr(sqlite_graph, "KEY_VERSION", KEY_VERSION - 1)
            async with open_sqlite(db) as stores:
                await stores.graph.upsert([moskva])

    asyncio.run(filed_by_the_previous_release())
    found = redstring("check", "--db", db)
    assert found.status == 0, found.err  # a stale index is not damage
    [line] = [line for line in found.out.splitlines() if line.startswith("stale name index: ")]
    assert f"tenant {DEFAULT_TENANT} was keyed under scheme {KEY_VERSION - 1}" in line
    assert f"redstring rekey --db {db} --tenant {DEFAULT_TENANT}" in line
    with Redstring(db, embeddings="none") as rs:
        [stale] = rs.check().stale
    assert (stale.tenant_id, stale.key_version, stale.current) == (
        DEFAULT_TENANT,
        KEY_VERSION - 1,
        KEY_VERSION,
    )
    rekeyed = redstring("rekey", "--db", db, "--tenant", str(DEFAULT_TENANT))
    assert rekeyed.status == 0, rekeyed.err
    assert "stale name index" not in redstring("check", "--db", db).out
    assert json.loads(redstring("check", "--db", db, "--json").out)["stale"] == []
