"""The fault campaign's damaged files (issue 27, item 6): each damage done through sqlite3.

A SQLite file holding passages, entities and vectors is copied once per
damage; the copy is damaged as a disk or an editor would (a flipped byte, a
blob cut short), then read the way that row is read. Each read must be
refused with `DamagedRowError` (an answer is wrong: the damage was read as
data; any other error is raw), and `redstring check` must list the damaged
row and exit 3.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from redstring import Entity, RedstringError, StoredChunk, new_tenant_id
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.ids import TenantId
from redstring.domain.vector import VectorRecord
from redstring.ports import DocumentChunked
from scripts import ROOT

TIMEOUT = 30.0
TENANT = new_tenant_id()
TEXTS = [f"passage {n} about the engine and the mill {n % 3}" for n in range(12)]


def _chunks(tenant: TenantId) -> list[StoredChunk]:
    return [
        StoredChunk(
            tenant_id=tenant,
            source_id=f"doc{n % 3}",
            text=text,
            index=n,
            start=0,
            end=len(text),
            embedding=[1.0, float(n), 0.5, 0.25],
        )
        for n, text in enumerate(TEXTS)
    ]


ENTITIES = [Entity(tenant_id=TENANT, entity_type="person", name=f"Ada {n}") for n in range(5)]


async def _written(path: Path) -> None:
    async with open_sqlite(path, dimension=4) as stores:
        await stores.chunks.upsert_chunks(_chunks(TENANT))
        await stores.graph.upsert(ENTITIES)
        await stores.events.append(
            [DocumentChunked(tenant_id=TENANT, document_id=f"doc{n}", chunks=[]) for n in range(3)]
        )
        for projection in ("graph", "vectors", "chunks"):  # folded: no catch-up on open
            await stores.events.record_position(TENANT, projection, 3)
        await stores.vectors.upsert(
            [
                VectorRecord(tenant_id=TENANT, entity_id=e.id, entity_type="person", vector=v)
                for e, v in zip(ENTITIES, ([1, 0, 0, n] for n in range(5)), strict=True)
            ]
        )


def _flip(data: bytes, at: int) -> bytes:
    flipped = bytearray(data)
    flipped[at] ^= 0x5A
    return bytes(flipped)


def _first(raw: sqlite3.Connection, statement: str) -> tuple[Any, ...]:
    found: tuple[Any, ...] = raw.execute(statement).fetchone()
    return found


def _chunk_body(raw: sqlite3.Connection) -> str:
    rowid, body = _first(raw, "SELECT rowid, body FROM chunk_texts ORDER BY rowid LIMIT 1")
    raw.execute(
        "UPDATE chunk_texts SET body = ? WHERE rowid = ?", (_flip(body, len(body) // 2), rowid)
    )
    return "chunk_texts"


def _entity_json(raw: sqlite3.Connection) -> str:
    rowid, body = _first(raw, "SELECT rowid, body FROM graph_entities ORDER BY rowid LIMIT 1")
    damaged = _flip(body.encode(), body.index('"name"')).decode("latin-1")
    raw.execute("UPDATE graph_entities SET body = ? WHERE rowid = ?", (damaged, rowid))
    return "graph_entities"


def _cut_block(raw: sqlite3.Connection) -> str:
    """The block of "engine" loses its last posting whole: the length of a block one shorter."""
    # "engine" as analysed (stemmed since ADR 0345): every passage holds it, the reads ask for it
    tenant, term, block, blob = _first(
        raw,
        "SELECT b.tenant, b.term, b.block, b.postings FROM chunk_posting_blocks b"
        " JOIN chunk_words w ON w.number = b.term WHERE w.term IN ('engin', 'engine')",
    )
    width, n = blob[0], len(blob[2:]) // (1 + blob[0])
    cut = blob[: 2 + n - 1] + blob[2 + n : 2 + n + (n - 1) * width]
    raw.execute(
        "UPDATE chunk_posting_blocks SET postings = ? WHERE tenant = ? AND term = ? AND block = ?",
        (cut, tenant, term, block),
    )
    return "chunk_posting_blocks"


def _short_chunk_vector(raw: sqlite3.Connection) -> str:
    raw.execute(
        "UPDATE chunk_vectors SET embedding = substr(embedding, 1, 12)"
        " WHERE key = (SELECT MIN(key) FROM chunk_vectors)"
    )
    return "chunk_vectors"


def _short_entity_vector(raw: sqlite3.Connection) -> str:
    raw.execute(
        "UPDATE vector_records SET vector = substr(vector, 1, 8)"
        " WHERE rowid = (SELECT MIN(rowid) FROM vector_records)"
    )
    return "vector_records"


def _event_json(raw: sqlite3.Connection) -> str:
    rowid, body = _first(raw, "SELECT rowid, body FROM event_log WHERE sequence = 2")
    raw.execute("UPDATE event_log SET body = ? WHERE rowid = ?", ("!" + body[1:], rowid))
    return "event_log"


def _reads(stores: Any) -> dict[str, Callable[[], Awaitable[Any]]]:
    analyzer = getattr(stores.chunks, "analyzer", None)  # an older tree has none: words as written
    words = ["engine", "mill"] if analyzer is None else analyzer.terms("engine mill")
    return {
        "chunk_texts": lambda: stores.chunks.list_chunks(TENANT),
        "graph_entities": lambda: stores.graph.list_entities(TENANT),
        "chunk_posting_blocks": lambda: stores.chunks.lexical_candidates(words, TENANT),
        "chunk_vectors": lambda: stores.chunks.search_chunks([1, 0, 0, 0], TENANT, k=5),
        "vector_records": lambda: stores.vectors.search([1, 0, 0, 0], TENANT, k=5),
        "event_log": lambda: stores.events.read(TENANT),
    }


DAMAGES: dict[str, Callable[[sqlite3.Connection], str]] = {
    "a flipped byte in a chunk body": _chunk_body,
    "a flipped byte in an entity's JSON": _entity_json,
    "a postings block cut by one whole posting": _cut_block,
    "a short chunk vector blob": _short_chunk_vector,
    "a short entity vector blob": _short_entity_vector,
    "a flipped byte in an event's JSON": _event_json,
}


async def _open_and_read(path: Path, table: str) -> Any:
    async with open_sqlite(path) as stores:
        return await _reads(stores)[table]()


async def _read(work: Callable[[], Awaitable[Any]]) -> str:
    try:
        await asyncio.wait_for(work(), TIMEOUT)
    except TimeoutError:
        return "HANG"
    except RedstringError as error:
        if type(error).__name__ == "DamagedRowError":  # by name: an older tree may lack it
            return f"refused DamagedRowError ({getattr(error, 'table', '?')})"
        return f"WRONG refused {type(error).__name__}, not DamagedRowError"
    except Exception as error:
        return f"RAW {type(error).__name__}"
    return "WRONG answered: the damage was read as data"


def _check(path: Path, table: str) -> str:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "redstring.cli", "check", "--db", str(path), "--json"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT * 4,
            check=False,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return "HANG check"
    if done.returncode != 3:
        return f"WRONG check exit {done.returncode}: {done.stderr.strip()[-120:]}"
    tables = [row["table"] for row in json.loads(done.stdout)["damaged"]]
    if table not in tables:
        return f"WRONG check listed {tables}, not {table}"
    return f"check exit 3, {len(tables)} row(s) listed"


def _forget(folder: Path) -> None:
    for stale in folder.glob("damage-*.db*"):
        stale.unlink()


async def damage_sweep(folder: Path) -> list[tuple[str, str]]:
    """Each damage on its own copy: the read's verdict and `redstring check`'s."""
    sound = folder / "damage-sound.db"
    _forget(folder)
    await _written(sound)
    results: list[tuple[str, str]] = []
    for number, (name, damage) in enumerate(DAMAGES.items()):
        copy = folder / f"damage-{number}.db"
        shutil.copy(sound, copy)
        with contextlib.closing(sqlite3.connect(copy)) as raw:
            table = damage(raw)
            raw.commit()
        verdict = await _read(lambda copy=copy, table=table: _open_and_read(copy, table))
        checked = _check(copy, table)
        if checked.startswith(("WRONG", "HANG")):
            verdict = checked if verdict.startswith("refused") else f"{verdict}; {checked}"
        else:
            verdict = f"{verdict}; {checked}"
        results.append((name, verdict))
    clean = _check_clean(sound)
    results.append(("the undamaged file", clean))
    return results


def _check_clean(path: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "redstring.cli", "check", "--db", str(path)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT * 4,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        return f"WRONG check exit {done.returncode} on a sound file"
    return "accepted (check exit 0, nothing listed)"
