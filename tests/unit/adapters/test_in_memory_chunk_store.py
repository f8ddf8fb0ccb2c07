"""What the in-memory chunk store adds beyond the compliance suite."""

from __future__ import annotations

import gc
import tracemalloc
import uuid

import pytest

from redstring.domain.chunk import StoredChunk
from redstring.domain.ids import TenantId
from redstring.stores import InMemoryChunkStore


@pytest.mark.parametrize("dimension", [0, -3])
def test_a_non_positive_dimension_is_refused(dimension: int) -> None:
    with pytest.raises(ValueError, match="dimension must be positive"):
        InMemoryChunkStore(dimension=dimension)


@pytest.mark.asyncio
async def test_each_embedding_is_kept_once_as_a_float32_row_not_also_as_a_list() -> None:
    # 384 floats as a Python list cost ~12 KB (pointers plus float objects);
    # as a float32 row ~1.5 KB. What the store holds once the caller has let
    # go of its chunks tells which it keeps.
    dimension, count = 384, 200
    tenant = TenantId(uuid.uuid4())
    store = InMemoryChunkStore(dimension=dimension)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        await store.upsert_chunks([_embedded(tenant, n, dimension) for n in range(count)])
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown / count < 4 * dimension * 4, f"{grown / count:.0f} bytes per chunk"
    wanted = _embedded(tenant, 3, dimension)
    (got,) = await store.get_chunks([wanted.id], tenant)
    assert got.embedding == pytest.approx(wanted.embedding, rel=1e-3)


@pytest.mark.asyncio
async def test_cached_posting_arrays_follow_every_write() -> None:
    """The per-term arrays are built on a query and must not outlive a write (ADR 0186)."""
    tenant, other = TenantId(uuid.uuid4()), TenantId(uuid.uuid4())
    store = InMemoryChunkStore(dimension=3)

    def text(source: str, body: str, index: int = 0) -> StoredChunk:
        return StoredChunk(
            tenant_id=tenant, source_id=source, text=body, index=index, start=0, end=len(body)
        )

    async def held(term: str) -> dict[str, int]:
        found = await store.lexical_candidates([term], tenant)
        return {c.chunk_id: c.term_frequencies[term] for c in found.candidates}

    first = text("a", "engine notes")
    await store.upsert_chunks([first])
    assert await held("engine") == {first.id: 1}
    second = text("b", "engine engine")
    await store.upsert_chunks([second])
    assert await held("engine") == {first.id: 1, second.id: 2}
    await store.replace_source("a", tenant, [text("a", "mill only")])
    assert await held("engine") == {second.id: 2}
    await store.delete_source("b", tenant)
    assert await held("engine") == {}
    # the same chunk id under another tenant never shows here
    await store.upsert_chunks([second.model_copy(update={"tenant_id": other})])
    assert await held("engine") == {}


def _embedded(tenant: TenantId, n: int, dimension: int) -> StoredChunk:
    text = f"passage {n}"
    # unit length already, so the stored unit row lists back as the same values
    raw = [n + i / dimension for i in range(1, dimension + 1)]
    norm = sum(x * x for x in raw) ** 0.5
    return StoredChunk(
        tenant_id=tenant,
        source_id="doc",
        index=n,
        start=0,
        end=len(text),
        text=text,
        embedding=[x / norm for x in raw],
    )
