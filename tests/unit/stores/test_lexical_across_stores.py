"""SQLite's LEXICAL answer equals the in-memory store's on the same entities (B206(c)).

The lexical channel is the same code over every store, so any difference is
a store reading its blocks, counts or names otherwise than the port says:
a block cut at other ids, a count capped elsewhere, a name under the wrong
id, another tenant's rows. Both tenants hold the same entity ids under other
names, and the crowd is larger than every cap of the channel.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring import Entity, RetrievalMode, Retriever, TenantId
from redstring.composition.lexical_channel import CANDIDATE_LIMIT
from redstring.domain.blocking import LEXICAL_BLOCK_LIMIT
from redstring.graph.sqlite import SqliteGraphStore
from redstring.ports import GraphStore
from redstring.storage.sqlite import SqliteDatabase
from redstring.stores import InMemoryGraphStore
from redstring.testing._support import fixed_id, property_settings

FIRST = ["Ada", "Adah", "Alan", "Alain", "Grace", "Gracie", "Ida", "Edith"]
LAST = ["Lovelace", "Lovelock", "Turing", "Tring", "Hopper", "Hoppe", "Smith", "Smyth"]
#: Queries of every shape: exact, alias, typo, one token, initial, joined, nothing.
QUERIES = [
    "Smith",
    "smith",
    "Ada Smith",
    "Ada Smyth",
    "Ada Lovelace",
    "Ada Lovelce",
    "A. Lovelace",
    "adalovelace",
    "Countess of Lovelace",
    "Smith Holdings",
    "Hopper Group",
    "Grace",
    "Zzyzx",
]
CROWD = LEXICAL_BLOCK_LIMIT + 50
TENANT, OTHER = TenantId(uuid.UUID(int=1)), TenantId(uuid.UUID(int=2))


def entities(tenant: TenantId, last: str) -> list[Entity]:
    """A crowd of `CROWD` people surnamed `last`, then named people and organisations."""
    crowd = [
        Entity(
            id=fixed_id(n),
            tenant_id=tenant,
            entity_type="person",
            name=f"{FIRST[n % len(FIRST)]} {chr(65 + n % 26)}. {last}",
        )
        for n in range(CROWD)
    ]
    named = [
        Entity(
            id=fixed_id(CROWD + n),
            tenant_id=tenant,
            entity_type="person" if n % 3 else "organization",
            name=f"{first} {surname}" if n % 3 else f"{surname} Holdings",
            aliases=["Countess of Lovelace"] if surname == "Lovelace" and n % 3 else [],
        )
        for n, (first, surname) in enumerate((f, s) for f in FIRST for s in LAST)
    ]
    return [*crowd, *named]


async def answers(
    graph: GraphStore, tenant: TenantId, queries: Sequence[str]
) -> list[dict[str, object]]:
    """Every (query, k, type filter) answer, whole: ids, order, scores, confidences."""
    retriever = Retriever.lexical_only(graph=graph)
    found = []
    for query in queries:
        for k in (1, 10, 100):
            for types in (None, ["organization"], ["person"]):
                result = await retriever.retrieve(
                    query, tenant, k=k, entity_types=types, mode=RetrievalMode.LEXICAL
                )
                found.append(result.model_dump(mode="json"))
    return found


async def both_stores(folder: Path, batches: Sequence[Sequence[Entity]]) -> list[GraphStore]:
    sqlite = SqliteGraphStore(SqliteDatabase(folder / f"{uuid.uuid4().hex}.db"))
    memory = InMemoryGraphStore()
    for batch in batches:
        await sqlite.upsert(batch)
        await memory.upsert(batch)
    return [memory, sqlite]


@pytest.mark.asyncio
async def test_sqlite_ranks_as_memory_behind_every_cap_with_the_same_ids_in_two_tenants(
    tmp_path: Path,
) -> None:
    mine, theirs = entities(TENANT, "Smith"), entities(OTHER, "Smyth")
    assert {e.id for e in mine} == {e.id for e in theirs}
    memory, sqlite = await both_stores(tmp_path, [mine, theirs])
    for tenant in (TENANT, OTHER):
        expected = await answers(memory, tenant, QUERIES)
        assert await answers(sqlite, tenant, QUERIES) == expected
    # Not vacuous: most answers hold matches, and "Smith" is found behind its crowd,
    # whose block is over the cap and whose pool the pre-score cuts.
    ranked = await answers(memory, TENANT, ["Smith"])  # k=10 without a filter is the fourth
    assert len(ranked[3]["matches"]) == 10  # type: ignore[arg-type]
    assert CROWD > LEXICAL_BLOCK_LIMIT > CANDIDATE_LIMIT
    every = await answers(memory, TENANT, QUERIES)
    assert sum(bool(a["matches"]) for a in every) > len(every) // 2


@pytest.mark.asyncio
@property_settings
@given(
    names=st.lists(
        st.tuples(st.integers(0, 40), st.sampled_from(FIRST), st.sampled_from(LAST)),
        max_size=40,
    ),
    other_names=st.lists(
        st.tuples(st.integers(0, 40), st.sampled_from(FIRST), st.sampled_from(LAST)),
        max_size=40,
    ),
    queries=st.lists(
        st.tuples(st.sampled_from(FIRST), st.sampled_from(LAST)).map(" ".join), max_size=3
    ),
)
async def test_sqlite_ranks_as_memory_on_any_names(
    tmp_path: Path,
    names: list[tuple[int, str, str]],
    other_names: list[tuple[int, str, str]],
    queries: list[str],
) -> None:
    def of(tenant: TenantId, drawn: list[tuple[int, str, str]]) -> list[Entity]:
        return [
            Entity(id=fixed_id(n), tenant_id=tenant, entity_type="person", name=f"{f} {s}")
            for n, f, s in drawn
        ]

    memory, sqlite = await both_stores(tmp_path, [of(TENANT, names), of(OTHER, other_names)])
    asked = [*queries, "Smith", "Ada Lovlace"]
    for tenant in (TENANT, OTHER):
        assert await answers(sqlite, tenant, asked) == await answers(memory, tenant, asked)
