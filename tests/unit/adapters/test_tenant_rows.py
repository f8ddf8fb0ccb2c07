"""`TenantRows`: slots written in place, freed and reused; a bulk load equals writing one by one."""

from __future__ import annotations

import numpy as np

from redstring.vector.rows import FREE, TenantRows


def unit(rows: int, seed: int = 3) -> np.ndarray:
    matrix = np.random.default_rng(seed).standard_normal((rows, 4)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def state(part: TenantRows) -> tuple[object, ...]:
    return (part.ids, part.types, part.codes.tolist(), part.rows.tolist(), part.live)


def test_a_bulk_load_is_what_writing_the_rows_into_empty_rows_gives() -> None:
    ids = [f"id-{n}" for n in (5, 1, 9, 3, 7)]
    types = ["Person", "place", "person", "Org", "place"]
    normalized = ["person", "place", "person", "org", "place"]
    rows = unit(5)
    written = TenantRows(4)
    written.put(ids, types, normalized, rows)
    loaded = TenantRows.of(ids, types, normalized, rows.copy())
    assert state(loaded) == state(written)
    for part in (written, loaded):  # and they go on alike
        part.remove(["id-1", "id-3"])
        part.put(["id-2", "id-5"], ["org", "org"], ["org", "org"], unit(2, seed=4))
    assert state(loaded) == state(written)
    empty = TenantRows.of([], [], [], np.zeros((0, 4), dtype=np.float32))
    assert (empty.live, empty.ids) == (0, [])


def test_a_repeated_id_keeps_its_last_row_and_a_freed_slot_is_reused_and_never_eligible() -> None:
    part = TenantRows(4)
    rows = unit(4)
    part.put(["a", "b", "a"], ["x", "y", "z"], ["x", "y", "z"], rows[:3])
    assert (part.ids, part.types, part.live) == (["a", "b"], ["z", "y"], 2)
    assert part.rows[0].tolist() == rows[2].tolist()
    assert part.eligible(None) is None
    part.remove(["a", "a", "nobody"])
    assert (part.ids, part.codes.tolist(), part.live) == (["", "b"], [FREE, 1], 1)
    assert part.eligible(None).tolist() == [False, True]  # type: ignore[union-attr]
    assert part.eligible(["z"]).tolist() == [False, False]  # type: ignore[union-attr]
    part.put(["c"], ["y"], ["y"], rows[3:])
    assert (part.ids, part.live) == (["c", "b"], 2)  # the freed slot, taken again
    assert part.eligible(["y", "unknown"]).tolist() == [True, True]  # type: ignore[union-attr]
    query = rows[3]
    assert part.search_exactly(query, k=1, eligible=None, min_score=None)[0][0] == 0


def test_the_buffer_grows_by_a_quarter_and_keeps_its_rows() -> None:
    part = TenantRows.of([str(n) for n in range(8)], ["t"] * 8, ["t"] * 8, unit(8))
    before = part.rows.tolist()
    part.put(["new"], ["t"], ["t"], unit(1, seed=9))
    assert part.rows.shape == (9, 4)
    assert part.rows[:8].tolist() == before
    assert part._buffer.shape[0] == 10  # 8 + 8 // 4
