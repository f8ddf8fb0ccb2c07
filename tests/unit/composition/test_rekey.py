"""Re-keying a tenant whose blocking index an older key scheme built (ADR 0070)."""

from __future__ import annotations

from uuid import UUID

import pytest

import redstring.graph.in_memory as in_memory_module
from redstring import RetrievalMode, Retriever
from redstring.domain.blocking import KEY_VERSION, prefix_key_for_name, soundex_key_for_name
from redstring.domain.entity import Entity
from redstring.domain.ids import TenantId
from redstring.stores import InMemoryGraphStore, rekey_graph
from tests.factories import make_entity

OTHER = TenantId(UUID("22222222-2222-4222-8222-222222222222"))


def version_one_keys(entity: Entity) -> frozenset[str]:
    """The whole-name scheme of ADR 0003, as a store written before version 2 holds it."""
    keys = {prefix_key_for_name(entity.name), soundex_key_for_name(entity.name)}
    return frozenset(key for key in keys if key is not None)


async def old_store(monkeypatch: pytest.MonkeyPatch) -> InMemoryGraphStore:
    """A store whose entities were filed by version-1 code, then the library upgraded."""
    store = InMemoryGraphStore()
    with monkeypatch.context() as old_code:
        old_code.setattr(in_memory_module, "blocking_keys_for", version_one_keys)
        old_code.setattr(in_memory_module, "KEY_VERSION", 1)
        await store.upsert([make_entity("Ada Lovelace"), make_entity("Charles Babbage")])
        await store.upsert([make_entity("Ada Lovelace", tenant_id=OTHER)])
    return store


async def lexical_names(store: InMemoryGraphStore, query: str, tenant: TenantId) -> list[str]:
    result = await Retriever.lexical_only(graph=store).retrieve(
        query, tenant, mode=RetrievalMode.LEXICAL
    )
    return [match.entity.name for match in result.matches]


@pytest.mark.asyncio
async def test_rekeying_an_old_index_makes_a_surname_find_its_entity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = await old_store(monkeypatch)
    tenant = make_entity().tenant_id
    assert await store.blocking_key_version(tenant) == 1
    assert await lexical_names(store, "Lovelace", tenant) == []  # the stale index's limit
    report = await rekey_graph(store, tenant)
    assert (report.version_before, report.version_after, report.rekeyed) == (1, KEY_VERSION, 2)
    assert await lexical_names(store, "Lovelace", tenant) == ["Ada Lovelace"]
    assert await store.blocking_key_version(OTHER) == 1  # another tenant is its own job
    assert await lexical_names(store, "Lovelace", OTHER) == []


@pytest.mark.asyncio
async def test_a_current_index_is_left_alone_unless_forced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = await old_store(monkeypatch)
    tenant = make_entity().tenant_id
    await rekey_graph(store, tenant)
    again = await rekey_graph(store, tenant)
    assert (again.version_before, again.rekeyed) == (KEY_VERSION, 0)
    forced = await rekey_graph(store, tenant, force=True)
    assert (forced.version_after, forced.rekeyed) == (KEY_VERSION, 2)


@pytest.mark.asyncio
async def test_an_empty_tenant_has_nothing_to_rekey() -> None:
    report = await rekey_graph(InMemoryGraphStore(), OTHER)
    assert (report.version_before, report.version_after, report.rekeyed) == (None, None, 0)


@pytest.mark.asyncio
async def test_a_half_rekeyed_tenant_reports_the_lowest_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = await old_store(monkeypatch)
    tenant = make_entity().tenant_id
    await store.upsert([make_entity("Grace Hopper")])  # written by the new code
    assert await store.blocking_key_version(tenant) == 1
