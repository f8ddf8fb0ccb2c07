"""`check`'s scans and the codecs' refusals, one kind of damage each (ADR 0360).

Each kind of damage a SQLite file can hold that `test_damaged_rows.py` does
not already write: a row whose JSON or body is sound but names another row,
a count that disagrees with the rows, a term list or postings block of a
layout redstring never writes, a vector of no chunk or of a non-finite
number, a remembered answer that is not UTF-8 or not an object.
"""

from __future__ import annotations

import contextlib
import sqlite3
import struct
import uuid
from pathlib import Path

import numpy as np
import pytest

from redstring.chunks.sqlite_codec import (
    decode_block,
    decode_terms,
    encode_block,
    sql_counted_block,
)
from redstring.chunks.sqlite_rows import CHUNK_BITS
from redstring.client.check import check
from redstring.client.store_set import StoreSet
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunk import StoredChunk
from redstring.domain.damage import DamagedRow
from redstring.domain.errors import DamagedRowError
from redstring.domain.ids import TenantId
from redstring.errors import InvalidArgumentError
from redstring.ports import DocumentChunked
from redstring.storage.damage import UNNAMED, decoding, named
from redstring.vector.in_memory import InMemoryVectorStore
from tests.unit.stores.test_damaged_rows import (
    ADA,
    CHUNKS,
    GRACE,
    TENANT,
    _assert_names,
    _block_of,
    _chunk_key,
    _count_one_more,
    _edit,
    _written,
)

_SET_BLOCK = (
    "UPDATE chunk_posting_blocks SET postings = ? WHERE tenant = ? AND term = ? AND block = ?"
)


def _run(path: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    with contextlib.closing(sqlite3.connect(path)) as raw:
        for statement, parameters in statements:
            raw.execute(statement, parameters)
        raw.commit()


def _rows(report: list[DamagedRow]) -> list[tuple[str, str, str]]:
    return [(r.table, r.row, r.problem) for r in report]


# -- the chunk store's scan ------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_chunk_body_swapped_with_another_chunks_is_found(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    first, second = _chunk_key(CHUNKS[0]), _chunk_key(CHUNKS[1])
    _run(
        path,
        (
            "UPDATE chunk_texts SET body = (SELECT body FROM chunk_texts"
            " WHERE tenant_id = ? AND chunk_id = ?) WHERE tenant_id = ? AND chunk_id = ?",
            (*second, *first),
        ),
    )
    async with open_sqlite(path) as stores:
        report = await stores.chunks.damaged_rows()
    assert _rows(report) == [
        ("chunk_texts", f"chunk {CHUNKS[0].id}", "its body holds another chunk's id or tenant")
    ]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("terms", "problem"),
    [
        (b"\x03\x01", "its term list has no valid width byte"),
        (b"", "its term list has no valid width byte"),
        (b"\x02\x01\x00\x01", "its term list is 4 bytes, not 1 + a multiple of 2"),
        (b"\x01\x03\x00", "its term list repeats a term"),
    ],
)
async def test_a_term_list_of_a_layout_never_written_is_found(
    tmp_path: Path, terms: bytes, problem: str
) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    _edit(
        path,
        "chunk_texts|terms|tenant_id = ? AND chunk_id = ?",
        lambda _: terms,
        *_chunk_key(CHUNKS[1]),
    )
    async with open_sqlite(path) as stores:
        report = await stores.chunks.damaged_rows()
    assert _rows(report)[0] == ("chunk_texts", f"chunk {CHUNKS[1].id} (term list)", problem)
    # the chunk's postings, which no list now names, are each reported beside it
    assert report[1:]
    assert {(r.table, r.problem) for r in report[1:]} == {
        ("chunk_posting_blocks", "it lacks 0 and holds 1 postings against the chunks' term lists")
    }


@pytest.mark.asyncio
async def test_the_tenants_corpus_counts_disagreeing_with_its_rows_are_found(
    tmp_path: Path,
) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    with contextlib.closing(sqlite3.connect(path)) as raw:
        count, total = raw.execute(
            "SELECT document_count, total_length FROM chunk_corpus WHERE tenant_id = ?",
            (str(TENANT),),
        ).fetchone()
    assert count == 3
    _run(
        path,
        (
            "UPDATE chunk_corpus SET document_count = document_count + 1 WHERE tenant_id = ?",
            (str(TENANT),),
        ),
    )
    async with open_sqlite(path) as stores:
        report = await stores.chunks.damaged_rows()
    assert _rows(report) == [
        (
            "chunk_corpus",
            "totals",
            f"it counts 4 chunks of {total} terms; the rows hold 3 of {total}",
        )
    ]


@pytest.mark.asyncio
async def test_a_vector_of_no_chunk_and_a_vector_that_is_not_finite_are_found(
    tmp_path: Path,
) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    with contextlib.closing(sqlite3.connect(path)) as raw:
        (number,) = raw.execute(
            "SELECT number FROM chunk_tenants WHERE tenant_id = ?", (str(TENANT),)
        ).fetchone()
        (chunk_number,) = raw.execute(
            "SELECT number FROM chunk_texts WHERE tenant_id = ? AND chunk_id = ?",
            _chunk_key(CHUNKS[2]),
        ).fetchone()
    low = int(number) << CHUNK_BITS
    orphan = low + 200
    nan = struct.pack("<4f", 1.0, float("nan"), 0.0, 0.0)
    _run(
        path,
        ("INSERT INTO chunk_vectors (key, embedding) VALUES (?, ?)", (orphan, nan)),
        ("UPDATE chunk_vectors SET embedding = ? WHERE key = ?", (nan, low + chunk_number)),
    )
    async with open_sqlite(path) as stores:
        report = await stores.chunks.damaged_rows()
        with pytest.raises(DamagedRowError) as raised:  # the read path says the same
            await stores.chunks.get_chunks([CHUNKS[2].id], TENANT)
    assert sorted(_rows(report)) == sorted(
        [
            (
                "chunk_vectors",
                f"chunk {CHUNKS[2].id}",
                "its vector holds a component that is not a finite number",
            ),
            ("chunk_vectors", f"key {orphan}", "a vector of no chunk the tenant holds"),
        ]
    )
    _assert_names(raised.value, "chunk_vectors", f"chunk {CHUNKS[2].id}", TENANT)
    assert raised.value.problem == "its vector holds a component that is not a finite number"


@pytest.mark.asyncio
async def test_a_block_that_decodes_but_lacks_a_posting_is_found(tmp_path: Path) -> None:
    """A valid one-posting block where the term lists name two: decodes, yet disagrees."""
    path = tmp_path / "damaged.db"
    await _written(path)
    tenant, term, block, blob = _block_of(path, "engin")
    slots, counts = decode_block(blob)
    assert len(slots) == 2
    _run(
        path,
        (
            _SET_BLOCK,
            (encode_block(slots[:1], counts[:1]), tenant, term, block),
        ),
    )
    async with open_sqlite(path) as stores:
        report = await stores.chunks.damaged_rows()
    assert _rows(report)[0] == (
        "chunk_posting_blocks",
        "term 'engin', block 0",
        "it lacks 1 and holds 0 postings against the chunks' term lists",
    )
    # and the chunk whose posting went no longer counts its length
    assert [(r.table, r.row) for r in report[1:]] == [("chunk_texts", f"chunk {CHUNKS[1].id}")]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("postings", "problem"),
    [
        (b"\x03\x00\x01\x01", "its postings block has no valid header (width and count bytes)"),
        (b"\x01", "its postings block has no valid header (width and count bytes)"),
        (b"\x01\x01\x07\x03\x01\x01", "its postings block lists chunk slots out of order"),
    ],
)
async def test_a_postings_block_of_a_layout_never_written_is_found(
    tmp_path: Path, postings: bytes, problem: str
) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    tenant, term, block, _ = _block_of(path, "engin")
    _run(
        path,
        (
            _SET_BLOCK,
            (postings, tenant, term, block),
        ),
    )
    async with open_sqlite(path) as stores:
        with pytest.raises(DamagedRowError) as raised:
            await stores.chunks.lexical_candidates(["engin"], TENANT)
        report = await stores.chunks.damaged_rows()
    _assert_names(raised.value, "chunk_posting_blocks", "term 'engin', block 0", TENANT)
    assert raised.value.problem == problem
    assert _rows(report) == [("chunk_posting_blocks", "term 'engin', block 0", problem)]


def test_a_block_of_the_older_layout_whose_length_fits_no_count_is_left_for_check() -> None:
    assert sql_counted_block(bytes([1])) == bytes([1])  # a width byte and no posting
    too_many = bytes([1]) + bytes(range(256)) + bytes([0]) + bytes(257)  # 257 postings
    assert sql_counted_block(too_many) == too_many
    with pytest.raises(ValueError, match="cut short or extended"):
        decode_block(too_many)


def test_a_term_list_decodes_to_its_ascending_numbers() -> None:
    assert decode_terms(b"\x01\x02\x03").tolist() == [2, 5]
    assert decode_terms(b"\x02\x00\x01\x01\x00").tolist() == [256, 257]
    assert np.array_equal(decode_terms(b"\x01"), np.zeros(0, np.int64))


#: Texts holding compound terms of every kind the analysis adds (ADR 0490): snake_case, a
#: dotted name, initials, a path, a URL, and a compound written twice in one chunk.
COMPOUND_TEXTS = [
    "Use chunk_store here.",
    "The U.S.A. calls os.path.join on docs/how-to/build_policy.md",
    "Read https://example.com/api_v2/search?q=max_connections, then set max_connections",
]


def _compound_chunks(tenant: TenantId) -> list[StoredChunk]:
    return [
        StoredChunk(tenant_id=tenant, source_id="ids", text=text, index=i, start=0, end=len(text))
        for i, text in enumerate(COMPOUND_TEXTS)
    ]


@pytest.mark.asyncio
async def test_a_sound_store_of_compound_terms_has_no_damaged_row(tmp_path: Path) -> None:
    """A compound term repeats words its chunk's length already counts: not damage."""
    path = tmp_path / "sound.db"
    async with open_sqlite(path, dimension=4) as stores:
        await stores.chunks.upsert_chunks(_compound_chunks(TENANT))
        assert await stores.chunks.damaged_rows() == []


@pytest.mark.asyncio
async def test_a_word_count_changed_beside_compound_terms_is_still_found(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    chunks = _compound_chunks(TENANT)
    async with open_sqlite(path, dimension=4) as stores:
        await stores.chunks.upsert_chunks(chunks)
    _count_one_more(path, "store")  # "Use chunk_store here." alone holds it
    async with open_sqlite(path) as stores:
        report = await stores.chunks.damaged_rows()
    # its words: use, chunk, store, here; chunk_store repeats two of them
    assert _rows(report) == [
        ("chunk_texts", f"chunk {chunks[0].id}", "its length is 4 terms, its postings count 5")
    ]


# -- the graph store's scan ------------------------------------------------------------


def _relationship_id(path: Path) -> str:
    with contextlib.closing(sqlite3.connect(path)) as raw:
        return str(raw.execute("SELECT id FROM graph_relationships").fetchone()[0])


@pytest.mark.asyncio
async def test_graph_rows_that_name_other_rows_or_hold_no_key_list_are_found(
    tmp_path: Path,
) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    relationship = _relationship_id(path)
    _run(
        path,
        (  # Grace's row holds Ada's JSON, valid and another row's
            "UPDATE graph_entities SET body = (SELECT body FROM graph_entities WHERE id = ?)"
            " WHERE id = ?",
            (str(ADA.id), str(GRACE.id)),
        ),
        ("UPDATE graph_entities SET keys = ? WHERE id = ?", ('["w:ada", 3]', str(ADA.id))),
        (  # the relationship's columns now join Grace to herself; its JSON, Ada to Grace
            "UPDATE graph_relationships SET source_id = target_id WHERE id = ?",
            (relationship,),
        ),
    )
    async with open_sqlite(path) as stores:
        report = await stores.graph.damaged_rows()
    assert sorted(_rows(report)) == sorted(
        [
            (
                "graph_entities",
                f"entity {ADA.id}",
                "its list of filed keys is not a JSON list of strings",
            ),
            ("graph_entities", f"entity {GRACE.id}", "its JSON holds another row's id or tenant"),
            (
                "graph_relationships",
                f"relationship {relationship}",
                "its JSON joins other entities than its row's columns",
            ),
        ]
    )


@pytest.mark.asyncio
async def test_a_relationship_row_holding_another_rows_json_is_found(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    relationship = _relationship_id(path)
    moved = str(uuid.uuid4())
    _run(path, ("UPDATE graph_relationships SET id = ? WHERE id = ?", (moved, relationship)))
    async with open_sqlite(path) as stores:
        report = await stores.graph.damaged_rows()
    assert _rows(report) == [
        (
            "graph_relationships",
            f"relationship {moved}",
            "its JSON holds another row's id or tenant",
        )
    ]


# -- the event log's scan --------------------------------------------------------------


@pytest.mark.asyncio
async def test_an_event_moved_to_another_sequence_and_odd_answers_are_found(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.db"
    async with open_sqlite(path, dimension=4) as stores:
        await stores.events.append(
            [DocumentChunked(tenant_id=TENANT, document_id=f"doc{n}", chunks=[]) for n in range(3)]
        )
        await stores.events.remember(TENANT, "listed", {"entities": []})
        await stores.events.remember(TENANT, "latin", {"entities": []})
    _run(
        path,
        (  # event 3 and a copy of event 2's JSON swap places: 2 now holds event 3's
            "UPDATE event_log SET body = (SELECT body FROM event_log WHERE sequence = 3)"
            " WHERE tenant_id = ? AND sequence = 2",
            (str(TENANT),),
        ),
        ("UPDATE answer_memory SET value = ? WHERE key = ?", ("[1, 2]", "listed")),
        ("UPDATE answer_memory SET value = ? WHERE key = ?", (b'{"a": "\xff"}', "latin")),
    )
    async with open_sqlite(path, read_only=True) as stores:
        with pytest.raises(DamagedRowError) as raised:
            await stores.events.read(TENANT)
        _assert_names(raised.value, "event_log", "event 2", TENANT)
        assert raised.value.problem == "its JSON holds another tenant or sequence than its row"
        with pytest.raises(DamagedRowError) as raised:
            await stores.events.recall(TENANT, ["listed"])
        _assert_names(raised.value, "answer_memory", "key listed", TENANT)
        assert raised.value.problem == "a remembered answer that is not a JSON object"
        with pytest.raises(DamagedRowError) as raised:
            await stores.events.recall(TENANT, ["latin"])
        _assert_names(raised.value, "answer_memory", "key latin", TENANT)
        assert raised.value.problem == "its text is not UTF-8 (invalid start byte at byte 7)"
        report = await stores.events.damaged_rows()
    assert sorted(_rows(report)) == sorted(
        [
            ("event_log", "event 2", "its JSON holds another tenant or sequence than its row"),
            ("answer_memory", "key listed", "a remembered answer that is not a JSON object"),
            ("answer_memory", "key latin", "its text is not UTF-8 (invalid start byte at byte 7)"),
        ]
    )


# -- decoding's own rules, and check over a mixed set of stores -------------------------


def test_an_error_of_redstrings_own_passes_through_decoding_unrelabelled() -> None:
    """A caller's mistake inside a decoder (a ValueError subclass) is not called damage."""
    mistake = InvalidArgumentError(name="k", value=-1, requirement="at least 0")
    with pytest.raises(InvalidArgumentError) as raised, decoding(table="t", tenant="x", row="r"):
        raise mistake
    assert raised.value is mistake


def test_an_error_that_already_names_its_store_keeps_that_name() -> None:
    unnamed = DamagedRowError(store=UNNAMED, table="t", tenant="x", row="r", problem="p")
    renamed = named(unnamed, "SqliteGraphStore(a.db)")
    assert (renamed.store, renamed.row, renamed.problem) == ("SqliteGraphStore(a.db)", "r", "p")
    assert named(renamed, "SqliteChunkStore(a.db)") is renamed


@pytest.mark.asyncio
async def test_check_scans_the_stores_that_can_and_names_those_that_cannot(
    tmp_path: Path,
) -> None:
    path = tmp_path / "damaged.db"
    await _written(path)
    _run(path, ("UPDATE graph_entities SET body = '{' WHERE id = ?", (str(ADA.id),)))
    async with open_sqlite(path) as stores:
        mixed = StoreSet(
            backend="SQLite",
            graph=stores.graph,
            vectors=InMemoryVectorStore(dimension=4),
            chunks=None,
            events=stores.events,
        )
        report = await check(mixed, str(path))
    assert report.checked == [type(stores.graph).__name__, type(stores.events).__name__]
    assert report.unchecked == ["InMemoryVectorStore"]
    assert [(r.table, r.row) for r in report.damaged] == [("graph_entities", f"entity {ADA.id}")]
    assert not report.ok
