"""The contract every `EventLog` adapter satisfies.

Subclass `EventLogCompliance` in a test module and implement `make_log`
returning a new, empty log. Written against the port and the domain only.
"""

from __future__ import annotations

from abc import abstractmethod
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Entity, Relationship
from redstring.domain.events import (
    DocumentChunked,
    DocumentExtracted,
    EntitiesEmbedded,
    EntitiesMerged,
    Event,
    MergeUndone,
)
from redstring.domain.ids import TenantId
from redstring.domain.vector import VectorRecord
from redstring.ports.answer_memory import AnswerMemory
from redstring.ports.event_log import EventLog, ProjectionPositions
from redstring.testing._support import fresh_tenant, property_settings
from redstring.testing.concurrency import EventLogConcurrency
from redstring.testing.tenant_keys import EventLogTenantKeyCompliance


def _event_id(n: int) -> UUID:
    return UUID(f"00000000-0000-4000-a000-{n:012x}")


def one_of_each_kind(tenant: TenantId, first_id: int = 1) -> list[Event]:
    """One event of every kind with non-trivial payloads, ids `first_id`, `first_id + 1`, ..."""
    ada = Entity(
        tenant_id=tenant,
        entity_type="person",
        name="Ada Lovelace",
        description="mathematician",
        aliases=["Countess of Lovelace"],
        properties={"born": 1815, "tags": ["math"], "meta": {"a": None}},
        confidence=0.5,
        source_document_ids=["doc-1"],
    )
    ada_king = Entity(tenant_id=tenant, entity_type="person", name="Ada King")
    engine = Entity(tenant_id=tenant, entity_type="product", name="Analytical Engine")
    wrote = Relationship(
        tenant_id=tenant,
        source_id=ada.id,
        target_id=engine.id,
        relationship_type="wrote about",
        description="notes",
        properties={"year": 1843},
    )
    moved = wrote.model_copy(update={"source_id": ada_king.id})
    chunk = StoredChunk(
        tenant_id=tenant,
        source_id="doc-1",
        text="Ada wrote notes.",
        index=0,
        start=0,
        end=16,
        entity_ids=[ada.id],
        metadata={"lang": "en"},
    )
    after = ada.model_copy(update={"aliases": [*ada.aliases, "Ada King"]})
    return [
        DocumentExtracted(
            tenant_id=tenant,
            event_id=_event_id(first_id),
            document_id="doc-1",
            entities=[ada, engine],
            relationships=[wrote],
        ),
        DocumentChunked(
            tenant_id=tenant, event_id=_event_id(first_id + 1), document_id="doc-1", chunks=[chunk]
        ),
        EntitiesEmbedded(
            tenant_id=tenant,
            event_id=_event_id(first_id + 2),
            records=[
                VectorRecord(
                    tenant_id=tenant, entity_id=ada.id, entity_type="person", vector=[0.25, -1.5]
                )
            ],
            model="fake",
        ),
        EntitiesMerged(
            tenant_id=tenant,
            event_id=_event_id(first_id + 3),
            survivor_before=ada,
            survivor_after=after,
            merged=[ada_king],
            relationships_removed=[moved],
            relationships_added=[],
            score=0.93,
        ),
        MergeUndone(
            tenant_id=tenant,
            event_id=_event_id(first_id + 4),
            merge_event_id=_event_id(first_id + 3),
            survivor_restored=ada,
            restored=[ada_king],
            relationships_restored=[moved],
            relationships_removed=[],
        ),
    ]


def _extracted(tenant: TenantId, document_id: str) -> Event:
    return DocumentExtracted(
        tenant_id=tenant, document_id=document_id, entities=[], relationships=[]
    )


def _unsequenced(events: list[Event]) -> list[Event]:
    return [event.model_copy(update={"sequence": None}) for event in events]


class EventLogCompliance(EventLogTenantKeyCompliance, EventLogConcurrency):
    """Behaviour any `EventLog` must show; see the module docstring."""

    @abstractmethod
    async def make_log(self) -> EventLog:
        """A new, empty log."""

    @pytest.mark.asyncio
    async def test_every_kind_of_event_reads_back_equal_with_sequences_from_one(self) -> None:
        log = await self.make_log()
        tenant = fresh_tenant()
        events = one_of_each_kind(tenant)
        stored = await log.append(events)
        assert [event.sequence for event in stored] == [1, 2, 3, 4, 5]
        read = await log.read(tenant)
        assert read == stored
        assert _unsequenced(read) == events
        assert await log.last_sequence(tenant) == 5

    @pytest.mark.asyncio
    async def test_sequences_continue_across_appends_without_gaps(self) -> None:
        log = await self.make_log()
        tenant = fresh_tenant()
        events = one_of_each_kind(tenant)
        await log.append(events[:2])
        await log.append([])
        later = await log.append(events[2:])
        assert [event.sequence for event in later] == [3, 4, 5]
        assert [event.sequence for event in await log.read(tenant)] == [1, 2, 3, 4, 5]

    @pytest.mark.asyncio
    async def test_read_after_a_position_and_limit_boundaries(self) -> None:
        log = await self.make_log()
        tenant = fresh_tenant()
        stored = await log.append(one_of_each_kind(tenant))
        assert await log.read(tenant, after=0) == stored
        assert await log.read(tenant, after=3) == stored[3:]
        assert await log.read(tenant, after=5) == []
        assert await log.read(tenant, after=99) == []
        assert await log.read(tenant, after=1, limit=2) == stored[1:3]
        assert await log.read(tenant, limit=0) == []
        assert await log.read(tenant, limit=1) == stored[:1]
        with pytest.raises(ValueError, match="after"):
            await log.read(tenant, after=-1)
        with pytest.raises(ValueError, match="limit"):
            await log.read(tenant, limit=-1)

    @pytest.mark.asyncio
    async def test_an_empty_tenant_reads_nothing(self) -> None:
        log = await self.make_log()
        tenant = fresh_tenant()
        assert await log.read(tenant) == []
        assert await log.last_sequence(tenant) == 0

    @pytest.mark.asyncio
    async def test_the_same_event_ids_in_two_tenants_never_cross(self) -> None:
        log = await self.make_log()
        first, second = fresh_tenant(), fresh_tenant()
        await log.append(one_of_each_kind(first, first_id=1)[:3])
        await log.append(one_of_each_kind(second, first_id=1)[:2])
        assert [e.tenant_id for e in await log.read(first)] == [first] * 3
        assert [e.tenant_id for e in await log.read(second)] == [second] * 2
        assert [e.sequence for e in await log.read(second)] == [1, 2]
        assert await log.last_sequence(first) == 3

    @pytest.mark.asyncio
    async def test_a_mixed_batch_sequences_each_tenant_on_its_own(self) -> None:
        log = await self.make_log()
        first, second = fresh_tenant(), fresh_tenant()
        a, b = one_of_each_kind(first), one_of_each_kind(second, first_id=10)
        stored = await log.append([a[0], b[0], a[1], b[1]])
        assert [(e.tenant_id, e.sequence) for e in stored] == [
            (first, 1),
            (second, 1),
            (first, 2),
            (second, 2),
        ]

    @pytest.mark.asyncio
    async def test_appending_an_event_id_again_appends_nothing(self) -> None:
        log = await self.make_log()
        tenant = fresh_tenant()
        events = one_of_each_kind(tenant)
        await log.append(events[:2])
        again = await log.append([events[1], events[2], events[2]])
        assert [e.sequence for e in again] == [2, 3, 3]
        assert await log.last_sequence(tenant) == 3

    @pytest.mark.asyncio
    async def test_mutating_a_given_or_returned_event_changes_nothing_logged(self) -> None:
        log = await self.make_log()
        tenant = fresh_tenant()
        [event] = one_of_each_kind(tenant)[:1]
        assert isinstance(event, DocumentExtracted)
        [stored] = await log.append([event])
        event.entities[0].aliases.append("given-side edit")
        assert isinstance(stored, DocumentExtracted)
        stored.entities[0].aliases.append("returned-side edit")
        [read] = await log.read(tenant)
        assert isinstance(read, DocumentExtracted)
        read.entities[0].aliases.append("read-side edit")
        [again] = await log.read(tenant)
        assert isinstance(again, DocumentExtracted)
        assert again.entities[0].aliases == ["Countess of Lovelace"]

    @pytest.mark.asyncio
    @property_settings
    @given(st.lists(st.tuples(st.booleans(), st.integers(0, 4)), max_size=12))
    async def test_interleaved_appends_keep_each_tenant_in_order(
        self, plan: list[tuple[bool, int]]
    ) -> None:
        log = await self.make_log()
        tenants = (fresh_tenant(), fresh_tenant())
        expected: dict[TenantId, list[Event]] = {tenant: [] for tenant in tenants}
        for step, (which, kind) in enumerate(plan):
            tenant = tenants[int(which)]
            event = one_of_each_kind(tenant)[kind].model_copy(
                update={"event_id": _event_id(1000 + step)}
            )
            await log.append([event])
            expected[tenant].append(event)
        for tenant in tenants:
            read = await log.read(tenant)
            assert _unsequenced(read) == expected[tenant]
            assert [event.sequence for event in read] == list(range(1, len(read) + 1))

    @pytest.mark.asyncio
    async def test_positions_are_per_tenant_and_projection_and_never_move_back(self) -> None:
        log = await self.make_log()
        assert isinstance(log, ProjectionPositions)
        tenant, other = fresh_tenant(), fresh_tenant()
        assert await log.position(tenant, "graph") == 0
        await log.record_position(tenant, "graph", 4)
        await log.record_position(tenant, "graph", 2)
        await log.record_position(other, "graph", 1)
        await log.record_position(tenant, "vectors", 3)
        assert await log.position(tenant, "graph") == 4
        assert await log.position(other, "graph") == 1
        assert await log.position(tenant, "vectors") == 3
        assert await log.position(tenant, "chunks") == 0

    @pytest.mark.asyncio
    async def test_lagging_tenants_are_those_some_projection_has_not_folded_to_the_end(
        self,
    ) -> None:
        log = await self.make_log()
        assert isinstance(log, ProjectionPositions)
        first, second = sorted([fresh_tenant(), fresh_tenant()], key=str)
        assert await log.lagging_tenants(["graph"]) == []
        await log.append(
            [_extracted(second, "b1"), _extracted(first, "a1"), _extracted(first, "a2")]
        )
        assert await log.lagging_tenants(["graph", "chunks"]) == [first, second]
        await log.record_position(first, "graph", 2)
        await log.record_position(first, "chunks", 2)
        await log.record_position(second, "graph", 1)
        assert await log.lagging_tenants(["graph", "chunks"]) == [second]
        assert await log.lagging_tenants(["graph"]) == []
        await log.append([_extracted(first, "a3")])
        assert await log.lagging_tenants(["graph"]) == [first]

    @pytest.mark.asyncio
    async def test_answers_are_recalled_per_tenant_by_key_and_replaced_when_remembered_again(
        self,
    ) -> None:
        log = await self.make_log()
        assert isinstance(log, AnswerMemory)
        tenant, other = fresh_tenant(), fresh_tenant()
        assert await log.recall(tenant, ["k"]) == {}
        answer = {"entities": [{"name": "Ada", "n": 1.5, "tags": ["x", None]}], "ok": True}
        await log.remember(tenant, "k", answer)
        await log.remember(other, "k", {"other": 1})
        await log.remember(tenant, "k2", {"first": 1})
        await log.remember(tenant, "k2", {"second": 2})
        assert await log.recall(tenant, ["k", "missing", "k2", "k"]) == {
            "k": answer,
            "k2": {"second": 2},
        }
        assert await log.recall(other, ["k", "k2"]) == {"k": {"other": 1}}
        recalled = await log.recall(tenant, ["k"])
        recalled["k"]["entities"].clear()
        answer["ok"] = False
        assert (await log.recall(tenant, ["k"]))["k"]["entities"][0]["name"] == "Ada"
        assert (await log.recall(tenant, ["k"]))["k"]["ok"] is True
        many = [f"key-{n}" for n in range(1200)]
        for key in many[::300]:
            await log.remember(tenant, key, {"key": key})
        assert sorted(await log.recall(tenant, many)) == sorted(many[::300])
