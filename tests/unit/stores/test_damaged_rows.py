"""A damaged SQLite file: each read of a damaged row raises `DamagedRowError` naming it,
and `check` lists every damaged row without stopping at the first (issue 27, item 6).

The damage is done as a user's disk or editor would, through `sqlite3` on the
closed file: one byte flipped, a blob cut short.
"""

from __future__ import annotations

import contextlib
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from redstring import new_tenant_id
from redstring.chunks.sqlite_codec import decode_block, sql_counted_block
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Entity, Relationship
from redstring.domain.ids import TenantId
from redstring.domain.vector import VectorRecord
from redstring.errors import DamagedRowError, DamagedStoreError
from redstring.ports import DocumentChunked

TENANT = new_tenant_id()
TEXTS = [
    "Ada Lovelace wrote notes on the engine",
    "Charles Babbage built the difference engine",
    "Grace Hopper wrote the first compiler",
]


def _chunk(text: str, index: int, vector: list[float]) -> StoredChunk:
    return StoredChunk(
        tenant_id=TENANT,
        source_id="notes",
        text=text,
        index=index,
        start=0,
        end=len(text),
        embedding=vector,
    )


CHUNKS = [_chunk(text, i, [float(i == j) + 0.5 for j in range(4)]) for i, text in enumerate(TEXTS)]
ADA = Entity(tenant_id=TENANT, entity_type="person", name="Ada Lovelace")
GRACE = Entity(tenant_id=TENANT, entity_type="person", name="Grace Hopper")


async def _written(path: Path) -> None:
    async with open_sqlite(path, dimension=4) as stores:
        await stores.chunks.upsert_chunks(CHUNKS)
        knows = Relationship(
            tenant_id=TENANT, source_id=ADA.id, target_id=GRACE.id, relationship_type="knows"
        )
        await stores.graph.upsert([ADA, GRACE], [knows])
        await stores.vectors.upsert(
            [
                VectorRecord(tenant_id=TENANT, entity_id=e.id, entity_type="person", vector=v)
                for e, v in [(ADA, [1, 0, 0, 0]), (GRACE, [0, 1, 0, 0])]
            ]
        )


def _edit(path: Path, statement: str, change: Callable[[bytes], bytes], *key: object) -> None:
    """Replace the value `statement` selects (value first, then its key columns) by `change`."""
    with contextlib.closing(sqlite3.connect(path)) as raw:
        table, column, where = statement.split("|")
        value = raw.execute(f"SELECT {column} FROM {table} WHERE {where}", key).fetchone()[0]
        raw.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", (change(value), *key))
        raw.commit()


def _flip(value: bytes | str, at: int | None = None) -> bytes | str:
    """`value` with one byte flipped: the middle one, or the one `at`."""
    data = bytearray(value.encode() if isinstance(value, str) else value)
    data[len(data) // 2 if at is None else at] ^= 0x5A
    return bytes(data).decode("latin-1") if isinstance(value, str) else bytes(data)


def _flip_json(value: bytes | str) -> bytes | str:
    """A flipped byte of the JSON's syntax (a flip inside a string can leave valid JSON)."""
    text = str(value)
    return _flip(value, at=text.index('"name"') if '"name"' in text else 0)


def _chunk_key(chunk: StoredChunk) -> tuple[str, str]:
    return (str(chunk.tenant_id), str(chunk.id))


def _block_of(path: Path, term: str) -> tuple[int, int, int, bytes]:
    with contextlib.closing(sqlite3.connect(path)) as raw:
        found = raw.execute(
            "SELECT b.tenant, b.term, b.block, b.postings FROM chunk_posting_blocks b"
            " JOIN chunk_words w ON w.number = b.term JOIN chunk_tenants t"
            " ON t.number = b.tenant AND t.tenant_id = w.tenant_id WHERE w.term = ?",
            (term,),
        ).fetchone()
    return int(found[0]), int(found[1]), int(found[2]), bytes(found[3])


def _count_one_more(path: Path, term: str) -> None:
    """Raise the last posting count of `term`'s first block by one, in place."""
    tenant, number, block, _ = _block_of(path, term)
    _edit(
        path,
        "chunk_posting_blocks|postings|tenant = ? AND term = ? AND block = ?",
        lambda b: b[:-1] + bytes([b[-1] + 1]),
        tenant,
        number,
        block,
    )


def _assert_names(error: DamagedRowError, table: str, row: str, tenant: TenantId) -> None:
    assert (error.table, error.tenant, error.row) == (table, str(tenant), row)
    assert isinstance(error, DamagedStoreError)
    assert "redstring check" in str(error)
    assert "backup" in str(error)


@pytest.mark.asyncio
async def test_a_flipped_byte_in_a_chunk_body_raises_a_damaged_row_naming_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    _edit(path, "chunk_texts|body|tenant_id = ? AND chunk_id = ?", _flip, *_chunk_key(CHUNKS[1]))
    async with open_sqlite(path) as stores:
        for read in (
            lambda: stores.chunks.list_chunks(TENANT),
            lambda: stores.chunks.get_chunks([CHUNKS[1].id], TENANT),
            lambda: stores.chunks.chunks_of_source("notes", TENANT),
            lambda: stores.chunks.source_manifest("notes", TENANT),
        ):
            with pytest.raises(DamagedRowError) as raised:
                await read()
            _assert_names(raised.value, "chunk_texts", f"chunk {CHUNKS[1].id}", TENANT)
            assert "does not decompress" in raised.value.problem
        # the other rows still read
        assert await stores.chunks.get_chunks([CHUNKS[0].id], TENANT) == [CHUNKS[0]]
        report = await stores.chunks.damaged_rows()
    assert [(r.table, r.row) for r in report] == [("chunk_texts", f"chunk {CHUNKS[1].id}")]


@pytest.mark.asyncio
async def test_a_flipped_byte_in_an_entitys_json_raises_a_damaged_row_naming_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    _edit(
        path, "graph_entities|body|tenant_id = ? AND id = ?", _flip_json, str(TENANT), str(ADA.id)
    )
    async with open_sqlite(path) as stores:
        for read in (
            lambda: stores.graph.list_entities(TENANT),
            lambda: stores.graph.get_entities([ADA.id], TENANT),
            lambda: stores.graph.get_names([ADA.id.int], TENANT),
            lambda: stores.graph.find_by_type("person", TENANT),
            lambda: stores.graph.neighbours(GRACE.id, TENANT),
            lambda: stores.graph.find_by_blocking_keys(["w:ada"], TENANT),
        ):
            with pytest.raises(DamagedRowError) as raised:
                await read()
            _assert_names(raised.value, "graph_entities", f"entity {ADA.id}", TENANT)
        assert await stores.graph.get_entities([GRACE.id], TENANT) == [GRACE]
        report = await stores.graph.damaged_rows()
    assert [(r.table, r.tenant, r.row) for r in report] == [
        ("graph_entities", str(TENANT), f"entity {ADA.id}")
    ]


@pytest.mark.asyncio
async def test_a_postings_block_cut_by_a_whole_posting_is_found_not_read_as_fewer(
    tmp_path: Path,
) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    tenant, term, block, blob = _block_of(path, "engin")  # "engine", as analysed
    assert len(decode_block(blob)[0]) == 2  # two chunks say "engine"
    # The last posting's slot and count go: the length a block of one posting has.
    _edit(
        path,
        "chunk_posting_blocks|postings|tenant = ? AND term = ? AND block = ?",
        lambda b: b[:3] + b[4:5],
        tenant,
        term,
        block,
    )
    async with open_sqlite(path) as stores:
        with pytest.raises(DamagedRowError) as raised:
            await stores.chunks.lexical_candidates(["engin"], TENANT)
        _assert_names(raised.value, "chunk_posting_blocks", "term 'engin', block 0", TENANT)
        assert "cut short" in raised.value.problem
        found = await stores.chunks.lexical_candidates(["grace"], TENANT)  # other terms read
        assert [c.chunk_id for c in found.candidates] == [CHUNKS[2].id]
        with pytest.raises(DamagedRowError):  # a write through the block refuses too
            await stores.chunks.delete_source("notes", TENANT)
        report = await stores.chunks.damaged_rows()
    assert [(r.table, r.row) for r in report] == [("chunk_posting_blocks", "term 'engin', block 0")]


@pytest.mark.asyncio
async def test_a_posting_count_changed_in_place_is_found_by_check(tmp_path: Path) -> None:
    """A block that still decodes but disagrees with the term lists and lengths."""
    path = tmp_path / "damaged.db"
    await _written(path)
    _count_one_more(path, "grace")
    async with open_sqlite(path) as stores:
        report = await stores.chunks.damaged_rows()
    assert [(r.table, r.row) for r in report] == [("chunk_texts", f"chunk {CHUNKS[2].id}")]
    assert "postings count" in report[0].problem


@pytest.mark.asyncio
async def test_short_vector_blobs_raise_a_damaged_row_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    with contextlib.closing(sqlite3.connect(path)) as raw:
        raw.execute("UPDATE chunk_vectors SET embedding = substr(embedding, 1, 12) WHERE key = 1")
        raw.execute(
            "UPDATE vector_records SET vector = substr(vector, 1, 8) WHERE entity_id = ?",
            (str(GRACE.id),),
        )
        raw.commit()
    async with open_sqlite(path) as stores:
        with pytest.raises(DamagedRowError) as raised:
            await stores.chunks.search_chunks([1, 0, 0, 0], TENANT, k=3)
        _assert_names(raised.value, "chunk_vectors", f"chunk {CHUNKS[1].id}", TENANT)
        assert "12 bytes, not the 16" in raised.value.problem
        with pytest.raises(DamagedRowError) as raised:
            await stores.chunks.get_chunks([CHUNKS[1].id], TENANT)
        _assert_names(raised.value, "chunk_vectors", f"chunk {CHUNKS[1].id}", TENANT)
        with pytest.raises(DamagedRowError) as raised:
            await stores.vectors.search([1, 0, 0, 0], TENANT, k=2)
        _assert_names(raised.value, "vector_records", f"entity {GRACE.id}", TENANT)
        with pytest.raises(DamagedRowError) as raised:
            await stores.vectors.get([GRACE.id], TENANT)
        _assert_names(raised.value, "vector_records", f"entity {GRACE.id}", TENANT)


@pytest.mark.asyncio
async def test_check_reports_every_damaged_row_and_changes_nothing(tmp_path: Path) -> None:
    path, sound = tmp_path / "damaged.db", tmp_path / "sound.db"
    await _written(path)
    await _written(sound)
    _edit(path, "chunk_texts|body|tenant_id = ? AND chunk_id = ?", _flip, *_chunk_key(CHUNKS[0]))
    _edit(path, "chunk_texts|body|tenant_id = ? AND chunk_id = ?", _flip, *_chunk_key(CHUNKS[2]))
    _edit(
        path,
        "graph_entities|body|tenant_id = ? AND id = ?",
        _flip_json,
        str(TENANT),
        str(GRACE.id),
    )
    with contextlib.closing(sqlite3.connect(path)) as raw:
        raw.execute("UPDATE vector_records SET vector = x'00'")
        raw.commit()
        before = raw.execute("SELECT body FROM chunk_texts ORDER BY chunk_id").fetchall()
    async with open_sqlite(path) as stores:
        rows = [
            *await stores.graph.damaged_rows(),
            *await stores.vectors.damaged_rows(),
            *await stores.chunks.damaged_rows(),
        ]
    assert sorted((r.table, r.row) for r in rows) == sorted(
        [
            ("graph_entities", f"entity {GRACE.id}"),
            ("vector_records", f"entity {ADA.id}"),
            ("vector_records", f"entity {GRACE.id}"),
            ("chunk_texts", f"chunk {CHUNKS[0].id}"),
            ("chunk_texts", f"chunk {CHUNKS[2].id}"),
        ]
    )
    with contextlib.closing(sqlite3.connect(path)) as raw:
        assert raw.execute("SELECT body FROM chunk_texts ORDER BY chunk_id").fetchall() == before
    async with open_sqlite(sound) as stores:
        assert await stores.graph.damaged_rows() == []
        assert await stores.vectors.damaged_rows() == []
        assert await stores.chunks.damaged_rows() == []


def test_a_block_of_the_older_layout_gains_its_count_byte() -> None:
    older = bytes([1, 3, 7, 2, 5])  # width 1, slots 3 and 7, counts 2 and 5
    assert sql_counted_block(older) == bytes([1, 1, 3, 7, 2, 5])
    assert decode_block(sql_counted_block(older))[1].tolist() == [2, 5]
    assert sql_counted_block(bytes([1, 3, 2])) == bytes([1, 0, 3, 2])  # one posting
    assert sql_counted_block(bytes([1, 3])) == bytes([1, 3])  # no count fits: left to be found
    with pytest.raises(ValueError, match="cut short"):
        decode_block(bytes([1, 1, 3, 7, 2]))


@pytest.mark.asyncio
async def test_postgres_bodies_that_no_longer_validate_raise_a_damaged_row_naming_it(
    postgres_url: str,
) -> None:
    import psycopg  # noqa: PLC0415 (the postgres extra)
    from psycopg import sql  # noqa: PLC0415

    from redstring.stores import open_postgres  # noqa: PLC0415

    schema = f"damaged_{uuid.uuid4().hex[:8]}"
    stores = await open_postgres(postgres_url, dimension=4, schema=schema)
    try:
        await stores.chunks.upsert_chunks(CHUNKS)
        await stores.graph.upsert([ADA, GRACE])
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("UPDATE {}.graph_entities SET body = body - 'name' WHERE id = %s").format(
                    sql.Identifier(schema)
                ),
                (ADA.id,),
            )
            admin.execute(
                sql.SQL(
                    "UPDATE {}.chunk_rows SET body = jsonb_build_array(body) WHERE chunk_id = %s"
                ).format(sql.Identifier(schema)),
                (str(CHUNKS[2].id),),
            )
        with pytest.raises(DamagedRowError) as raised:
            await stores.graph.list_entities(TENANT)
        _assert_names(raised.value, "graph_entities", f"entity {ADA.id}", TENANT)
        with pytest.raises(DamagedRowError) as raised:
            await stores.graph.get_names([ADA.id.int], TENANT)
        _assert_names(raised.value, "graph_entities", f"entity {ADA.id}", TENANT)
        assert await stores.graph.get_entities([GRACE.id], TENANT) == [GRACE]
        with pytest.raises(DamagedRowError) as raised:
            await stores.chunks.list_chunks(TENANT)
        _assert_names(raised.value, "chunk_rows", f"chunk {CHUNKS[2].id}", TENANT)
        with pytest.raises(DamagedRowError):
            await stores.chunks.search_chunks([0, 0, 1, 0], TENANT, k=1)
        with pytest.raises(DamagedRowError) as raised:  # replacing it by difference refuses too
            await stores.chunks.replace_source("notes", TENANT, CHUNKS)
        _assert_names(raised.value, "chunk_rows", f"chunk {CHUNKS[2].id}", TENANT)
        # `check` scans PostgreSQL's JSON rows too: every damaged one, the rest read
        assert [(r.table, r.tenant, r.row) for r in await stores.graph.damaged_rows()] == [
            ("graph_entities", str(TENANT), f"entity {ADA.id}")
        ]
        assert [(r.table, r.row) for r in await stores.chunks.damaged_rows()] == [
            ("chunk_rows", f"chunk {CHUNKS[2].id}")
        ]
    finally:
        await stores.close()


@pytest.mark.asyncio
async def test_a_damaged_event_or_remembered_answer_raises_a_damaged_row_and_check_lists_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.db"
    async with open_sqlite(path, dimension=4) as stores:
        await stores.events.append(
            [DocumentChunked(tenant_id=TENANT, document_id=f"doc{n}", chunks=[]) for n in range(5)]
        )
        await stores.events.remember(TENANT, "answer-1", {"entities": []})
    _edit(path, "event_log|body|tenant_id = ? AND sequence = ?", _flip_json, str(TENANT), 2)
    _edit(
        path, "answer_memory|value|tenant_id = ? AND key = ?", _flip_json, str(TENANT), "answer-1"
    )
    with contextlib.closing(sqlite3.connect(path)) as raw:  # and a gap: event 4 is gone
        raw.execute("DELETE FROM event_log WHERE sequence = 4")
        raw.commit()
    # Read-only: a writable open would fold the unfolded events first, and stop at event 2.
    async with open_sqlite(path, read_only=True) as stores:
        with pytest.raises(DamagedRowError) as raised:
            await stores.events.read(TENANT)
        _assert_names(raised.value, "event_log", "event 2", TENANT)
        assert len(await stores.events.read(TENANT, after=2)) == 2  # the rest still reads
        with pytest.raises(DamagedRowError) as raised:
            await stores.events.recall(TENANT, ["answer-1"])
        _assert_names(raised.value, "answer_memory", "key answer-1", TENANT)
        report = await stores.events.damaged_rows()
    assert [(r.table, r.row, r.problem) for r in report][1:] == [
        ("event_log", "event 5", "the tenant's log skips from 3"),
        ("answer_memory", "key answer-1", report[2].problem),
    ]
    assert report[0].row == "event 2"
