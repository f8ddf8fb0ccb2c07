"""Concurrency cases every store adapter passes: one writer and several readers on one tenant.

A writer moves one tenant through a cycle of known states, one batch per
step, while readers query it. Each read must equal what the same query
returns in one of the committed states (computed first, with no writer
running): a read never mixes two states, and never sees half a batch. The
mixins are bases of the compliance suites, so every adapter runs them.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Hashable
from uuid import UUID

import pytest

from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Entity
from redstring.domain.events import DocumentChunked, Event
from redstring.domain.ids import TenantId
from redstring.domain.vector import VectorRecord
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.event_log import EventLog
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore
from redstring.testing._support import fixed_id, fresh_tenant

#: Writer steps per race; each is one committed batch.
STEPS = 40
#: Concurrent readers per race.
READERS = 3


async def race[S: Hashable](
    states: int,
    write: Callable[[int], Awaitable[None]],
    read: Callable[[], Awaitable[S]],
) -> list[S]:
    """Every read taken while `write` cycles through `states` states; fails on a foreign one.

    `write(i)` moves the tenant to state `i` in one batch; `read()` returns a
    hashable observation. The committed states' observations are taken first,
    one write and one read at a time.
    """
    committed: list[S] = []
    for state in range(states):
        await write(state)
        committed.append(await read())
    done = asyncio.Event()
    seen: list[S] = []

    async def writer() -> None:
        try:
            for step in range(STEPS):
                await write(step % states)
                await asyncio.sleep(0)  # a store that never awaits still lets readers in
        finally:
            done.set()

    async def reader() -> None:
        while not done.is_set():
            seen.append(await read())
            await asyncio.sleep(0)

    await asyncio.gather(writer(), *(reader() for _ in range(READERS)))
    foreign = [observation for observation in seen if observation not in committed]
    assert foreign == [], f"{len(foreign)} of {len(seen)} reads match no committed state"
    assert seen, "no read ran while the writer wrote"
    return seen


def _chunk(tenant: TenantId, source: str, text: str, index: int) -> StoredChunk:
    start = index * 1000
    return StoredChunk(
        tenant_id=tenant,
        source_id=source,
        text=text,
        index=index,
        start=start,
        end=start + len(text),
    )


#: The texts of source "doc" in each state the chunk writer cycles through; () deletes it.
_DOC_STATES: tuple[tuple[str, ...], ...] = (
    ("ada wrote the notes", "ada ada engine"),
    ("babbage built the engine",),
    (),
    ("notes on the engine by ada", "babbage", "ada and babbage"),
)


class ChunkStoreConcurrency(ABC):
    """Lexical reads are one snapshot: statistics and candidates from one committed state."""

    @abstractmethod
    async def make_store(self, dimension: int) -> ChunkStore: ...

    @pytest.mark.asyncio
    async def test_lexical_reads_during_writes_each_match_one_committed_state(self) -> None:
        store, tenant = await self.make_store(8), fresh_tenant()
        await store.upsert_chunks([_chunk(tenant, "other", "ada lovelace and the engine", 0)])

        async def write(state: int) -> None:
            texts = _DOC_STATES[state]
            if texts:
                chunks = [_chunk(tenant, "doc", text, i) for i, text in enumerate(texts)]
                await store.replace_source("doc", tenant, chunks)
            else:
                await store.delete_source("doc", tenant)

        async def read() -> Hashable:
            found = await store.lexical_candidates(
                store.analyzer.terms("ada babbage engine"), tenant
            )
            stats = found.stats
            return (
                stats.document_count,
                round(stats.average_length, 9),
                tuple(sorted(stats.document_frequencies.items())),
                tuple(
                    sorted(
                        (str(c.chunk_id), c.length, tuple(sorted(c.term_frequencies.items())))
                        for c in found.candidates
                    )
                ),
            )

        await race(len(_DOC_STATES), write, read)


class GraphStoreConcurrency(ABC):
    """An `upsert` batch is seen whole or not at all."""

    @abstractmethod
    async def make_store(self) -> GraphStore: ...

    @pytest.mark.asyncio
    async def test_reads_during_upserts_never_see_half_a_batch(self) -> None:
        store, tenant = await self.make_store(), fresh_tenant()
        ids = [fixed_id(n) for n in range(1, 5)]

        async def write(state: int) -> None:
            batch = [
                Entity(
                    id=entity_id,
                    tenant_id=tenant,
                    entity_type="person",
                    name=f"Person {n}",
                    description=f"state {state}",
                )
                for n, entity_id in enumerate(ids)
            ]
            await store.upsert(batch)

        async def read() -> Hashable:
            return tuple(e.description for e in await store.list_entities(tenant))

        await race(3, write, read)


class VectorStoreConcurrency(ABC):
    """An `upsert` batch of vectors is seen whole or not at all."""

    @abstractmethod
    async def make_store(self, dimension: int) -> VectorStore: ...

    @pytest.mark.asyncio
    async def test_searches_during_upserts_never_see_half_a_batch(self) -> None:
        store, tenant = await self.make_store(4), fresh_tenant()
        ids = [fixed_id(n) for n in range(1, 5)]

        async def write(state: int) -> None:
            vector = [0.0] * 4
            vector[state] = 1.0
            await store.upsert(
                [
                    VectorRecord(
                        tenant_id=tenant, entity_id=entity_id, entity_type="thing", vector=vector
                    )
                    for entity_id in ids
                ]
            )

        async def read() -> Hashable:
            found = await store.search([1.0, 0.0, 0.0, 0.0], tenant, k=len(ids))
            return tuple(sorted((str(m.entity_id), round(m.score, 6)) for m in found))

        await race(3, write, read)


class EventLogConcurrency(ABC):
    """An `append` batch is seen whole or not at all, and sequences have no gaps."""

    @abstractmethod
    async def make_log(self) -> EventLog: ...

    @pytest.mark.asyncio
    async def test_reads_during_appends_see_whole_batches_in_order(self) -> None:
        log, tenant = await self.make_log(), fresh_tenant()
        appended = 0

        async def write(state: int) -> None:
            nonlocal appended
            batch: list[Event] = []
            for _ in range(3):
                appended += 1
                batch.append(
                    DocumentChunked(
                        event_id=UUID(int=appended),
                        tenant_id=tenant,
                        document_id=f"doc-{state}",
                        chunks=[],
                    )
                )
            await log.append(batch)

        async def read() -> Hashable:
            sequences = [event.sequence for event in await log.read(tenant)]
            return (len(sequences) % 3, sequences == list(range(1, len(sequences) + 1)))

        seen = await race(1, write, read)
        assert set(seen) == {(0, True)}
