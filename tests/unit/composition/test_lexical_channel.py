"""The lexical channel's exact-name, trigram and normalise-once guarantees (ADR 0115)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from uuid import UUID

import pytest

from redstring import Entity, EntityId, RetrievalMode, Retriever, TenantId
from redstring.domain import normalization
from redstring.domain.blocking import (
    LEXICAL_BLOCK_LIMIT,
    LEXICAL_CANDIDATE_LIMIT,
    MAX_BLOCK_MEMBERS,
    blocking_keys_for,
    query_blocking_keys,
    query_exact_key,
)
from redstring.domain.ngrams import NGRAM_DF_CAP, NGRAM_POSTINGS_BUDGET
from redstring.domain.query import NormalizedQuery
from redstring.ports import VectorRecord
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryGraphStore, InMemoryVectorStore
from tests.factories import DEFAULT_TENANT, make_entity

TENANT = DEFAULT_TENANT
#: More namesakes than any cap of the channel, so every block the query reads is cut.
CROWD = 2_500


def fixed_id(n: int) -> EntityId:
    return EntityId(UUID(f"00000000-0000-4000-8000-{n:012x}"))


def test_the_crowd_exceeds_every_cap_of_the_channel() -> None:
    caps = (LEXICAL_BLOCK_LIMIT, LEXICAL_CANDIDATE_LIMIT, MAX_BLOCK_MEMBERS, NGRAM_DF_CAP)
    assert max(caps) < CROWD
    assert CROWD * 5 > NGRAM_POSTINGS_BUDGET  # the five trigrams of "smith" overflow the budget


async def crowd_graph(*, last: Entity) -> InMemoryGraphStore:
    """`CROWD` "Smith Holdings N" with the lowest ids, then `last` with the highest."""
    graph = InMemoryGraphStore()
    crowd = [
        make_entity(f"Smith Holdings {n}", id=fixed_id(n), entity_type="organization")
        for n in range(1, CROWD + 1)
    ]
    await graph.upsert([*crowd, last])
    return graph


class RecordingGraph:
    """A graph store that hands the lexical channel everything it asks and records the answers."""

    def __init__(self, inner: InMemoryGraphStore) -> None:
        self.inner = inner
        self.blocks: list[tuple[int, dict[str, list[EntityId]]]] = []
        self.counts: list[tuple[int, dict[str, int]]] = []

    async def get_entities(self, ids: Sequence[EntityId], tenant_id: TenantId) -> list[Entity]:
        return await self.inner.get_entities(ids, tenant_id)

    async def get_names(self, numbers: Sequence[int], tenant_id: TenantId) -> dict[int, list[str]]:
        return await self.inner.get_names(numbers, tenant_id)

    async def find_ids_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int
    ) -> dict[str, list[EntityId]]:
        answer = await self.inner.find_ids_by_blocking_keys(keys, tenant_id, limit=limit)
        self.blocks.append((limit, answer))
        return answer

    async def count_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int
    ) -> dict[str, int]:
        answer = await self.inner.count_blocking_keys(keys, tenant_id, limit=limit)
        self.counts.append((limit, answer))
        return answer


@pytest.mark.asyncio
async def test_a_query_equal_to_a_name_finds_it_first_behind_every_cap() -> None:
    """The issue's case is 50,000 "Smith Holdings N"; `CROWD` gives the channel the same answers.

    Every read the channel makes is either saturated by the crowd (a block
    cut at its first `limit` ids, all of them the lowest crowd ids; a count
    at its cap) or holds no crowd member. A crowd of 50,000 with ids below
    the target's therefore hands the channel exactly these answers, so the
    ranking below is the ranking at 50,000 (`python -m scripts.benchmark_lexical
    --crowd 50000` builds that case literally).
    """
    smith = make_entity("Smith", id=fixed_id(CROWD + 1))
    graph = RecordingGraph(await crowd_graph(last=smith))
    retriever = Retriever.lexical_only(graph=graph)  # type: ignore[arg-type]
    result = await retriever.retrieve("SMITH", TENANT, k=3, mode=RetrievalMode.LEXICAL)
    assert result.matches[0].entity == smith
    assert result.matches[0].lexical == 1.0
    assert all(match.lexical is not None and match.lexical < 1.0 for match in result.matches[1:])
    crowd = {fixed_id(n) for n in range(1, CROWD + 1)}
    saturated = 0
    for limit, blocks in graph.blocks:
        for key, ids in blocks.items():
            if crowd & set(ids):
                assert ids == [fixed_id(n) for n in range(1, limit + 1)], key
                saturated += 1
    for limit, counts in graph.counts:
        for key, count in counts.items():
            assert count == limit or count <= 1, key  # the crowd's, or Smith's alone
            saturated += count == limit
    # The crowd did fill blocks and counts (a too-common name block is counted, not
    # read): the case is not vacuous.
    assert saturated >= 5


@pytest.mark.asyncio
@pytest.mark.parametrize("types", [None, ["person"]])
async def test_a_too_common_name_block_is_read_only_when_exact_or_a_type_filter_asks(
    types: list[str] | None,
) -> None:
    """Its ids would be skipped unranked: it is counted, and read only as the exact name's
    block (exact matches come first) or for a type filter (which ranks every block)."""
    inner = InMemoryGraphStore()
    namesakes = [make_entity("Ada Smith", id=fixed_id(n)) for n in range(1, CROWD + 1)]
    await inner.upsert(namesakes)
    graph = RecordingGraph(inner)
    retriever = Retriever.lexical_only(graph=graph)  # type: ignore[arg-type]
    result = await retriever.retrieve(
        "Ada Smith", TENANT, k=3, entity_types=types, mode=RetrievalMode.LEXICAL
    )
    assert [m.entity.id for m in result.matches] == [fixed_id(n) for n in (1, 2, 3)]
    name_keys = query_blocking_keys(NormalizedQuery.of("Ada Smith"))
    [sizes] = [c for limit, c in graph.counts if limit == LEXICAL_BLOCK_LIMIT + 1]
    common = {key for key in name_keys if sizes[key] > LEXICAL_BLOCK_LIMIT}
    exact = query_exact_key(NormalizedQuery.of("Ada Smith"))
    assert exact in common  # the case is not vacuous
    assert len(common) >= 3
    [read] = [blocks for limit, blocks in graph.blocks if limit == LEXICAL_BLOCK_LIMIT]
    assert common & set(read) == (common if types else {exact})
    assert read[exact] == [fixed_id(n).int for n in range(1, LEXICAL_BLOCK_LIMIT + 1)]


@pytest.mark.asyncio
async def test_a_query_equal_to_an_alias_finds_it_first_behind_every_cap() -> None:
    smith = make_entity("John Q. Public", id=fixed_id(CROWD + 1), aliases=["Smith"])
    graph = await crowd_graph(last=smith)
    result = await Retriever.lexical_only(graph=graph).retrieve("smith", TENANT, k=1)
    assert [match.entity.id for match in result.matches] == [smith.id]


@pytest.mark.asyncio
async def test_an_exact_name_survives_the_type_filter_walk() -> None:
    smith = make_entity("Smith", id=fixed_id(CROWD + 1))
    graph = await crowd_graph(last=smith)
    retriever = Retriever.lexical_only(graph=graph)
    people = await retriever.retrieve("Smith", TENANT, k=2, entity_types=["person"])
    assert [match.entity.id for match in people.matches] == [smith.id]
    orgs = await retriever.retrieve("Smith", TENANT, k=2, entity_types=["organization"])
    assert [match.entity.id for match in orgs.matches] == [fixed_id(1), fixed_id(2)]


async def best_behind_a_crowd(crowd: str, name: str, query: str) -> list[EntityId]:
    """`best_behind` a crowd of `CROWD`."""
    return await best_behind(CROWD, crowd, name, query)


async def best_behind(size: int, crowd: str, name: str, query: str) -> list[EntityId]:
    """The best match for `query` among `size` entities named `crowd` + " N" (lower ids)
    and one named `name` (the highest id, `size` + 1)."""
    graph = InMemoryGraphStore()
    crowded = [make_entity(f"{crowd} {n}", id=fixed_id(n)) for n in range(1, size + 1)]
    await graph.upsert([*crowded, make_entity(name, id=fixed_id(size + 1))])
    result = await Retriever.lexical_only(graph=graph).retrieve(query, TENANT, k=1)
    return [match.entity.id for match in result.matches]


@pytest.mark.asyncio
async def test_a_name_written_without_its_space_is_found_behind_a_crowd() -> None:
    """The crowd fills the soundex, token and trigram reads; the joined key is small."""
    found = await best_behind_a_crowd("John Smithson", "John Smith", "JohnSmith")
    assert found == [fixed_id(CROWD + 1)]


@pytest.mark.asyncio
async def test_an_initial_is_found_with_its_surname_behind_a_crowd_of_the_surname() -> None:
    """The crowd fills every block of "smith": cut and counted, they would outrank the
    target, which only its small blocks (initials, pair) hold."""
    found = await best_behind_a_crowd("Smith", "Jemima Smith", "J. Smith")
    assert found == [fixed_id(CROWD + 1)]


@pytest.mark.asyncio
async def test_the_pool_is_cut_by_how_the_names_read_not_by_shared_keys_or_ids() -> None:
    """150 long names hold a word of the query and most of its trigrams, so they share more
    keys and trigrams with it than the target; they read further from it than "John Smith".
    (None holds every query word: one that did would rank first, ADR 0350.)"""
    found = await best_behind(
        150, "Jonh Smith Fairweather Consolidated", "John Smith", "Jonh Smithe"
    )
    assert found == [fixed_id(151)]


@pytest.mark.asyncio
async def test_a_spelling_sharing_no_key_is_found_through_its_trigrams() -> None:
    graph = InMemoryGraphStore()
    target = make_entity("Pyotr Tchaikovsky", id=fixed_id(7))
    await graph.upsert([target, make_entity("Ada Lovelace", id=fixed_id(1))])
    query = NormalizedQuery.of("Chaikovskiy")
    assert not set(query_blocking_keys(query)) & blocking_keys_for(target)  # no key shared
    result = await Retriever.lexical_only(graph=graph).retrieve("Chaikovskiy", TENANT)
    assert [match.entity.id for match in result.matches] == [target.id]


@pytest.mark.asyncio
async def test_trigram_candidates_are_the_rarest_sharers_not_the_lowest_ids() -> None:
    """Many low-id names share the query's common trigrams; the target holds its rare ones."""
    graph = InMemoryGraphStore()
    crowd = [make_entity(f"Kowalski {n}", id=fixed_id(n)) for n in range(1, 1500)]
    target = make_entity("Kovalsky Jr", id=fixed_id(5000))
    await graph.upsert([*crowd, target])
    result = await Retriever.lexical_only(graph=graph).retrieve("Kowalsky", TENANT, k=60)
    assert target.id in [match.entity.id for match in result.matches]


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", list(RetrievalMode))
async def test_a_retrieve_puts_the_query_in_matching_form_once(
    monkeypatch: pytest.MonkeyPatch, mode: RetrievalMode
) -> None:
    """In every mode: the channels, the fusion and the result read one normalised query."""
    entities = [make_entity("Ada Lovelace"), make_entity("Lovelace Holdings")]
    graph = InMemoryGraphStore()
    await graph.upsert(entities)
    embeddings = FakeEmbeddingProvider(dimension=16)
    vectors = InMemoryVectorStore(dimension=16)
    made = await embeddings.embed([e.name for e in entities])
    await vectors.upsert(
        [
            VectorRecord(tenant_id=e.tenant_id, entity_id=e.id, entity_type=e.entity_type, vector=v)
            for e, v in zip(entities, made, strict=True)
        ]
    )
    seen: Counter[str] = Counter()
    inner = normalization._matching_form

    def counting(name: str) -> str:
        seen[name] += 1
        return inner(name)

    monkeypatch.setattr(normalization, "_matching_form", counting)
    query = "Lovelace, Ada!"
    retriever = Retriever(embeddings=embeddings, vectors=vectors, graph=graph)
    result = await retriever.retrieve(query, TENANT, mode=mode)
    assert {match.entity.name for match in result.matches} >= {"Ada Lovelace"}
    # SEMANTIC may skip the lexical reading; no mode may normalise twice.
    assert seen[query] == 1 or (mode is RetrievalMode.SEMANTIC and seen[query] == 0)
    assert seen["lovelace ada"] == 0  # nor is its form normalised again


@pytest.mark.asyncio
async def test_a_latin_name_is_found_from_its_spelling_in_another_script() -> None:
    graph = InMemoryGraphStore()
    names = ("Germany", "Georgia", "Germaine Greer", "Moskva", "Mosul", "Tokyo")
    await graph.upsert([make_entity(n) for n in names])
    retriever = Retriever.lexical_only(graph=graph)
    for query, first in (("Германия", "Germany"), ("Москва", "Moskva"), ("Γεωργία", "Georgia")):
        result = await retriever.retrieve(query, TENANT, k=3)
        assert [m.entity.name for m in result.matches][:1] == [first], query
