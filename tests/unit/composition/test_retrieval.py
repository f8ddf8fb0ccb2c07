"""The composed retrieval surface, over the real in-memory adapters."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

import pytest

from redstring import Entity, EntityId, RetrievalMode, RetrievalResult, Retriever, TenantId
from redstring.composition.lexical_channel import CANDIDATE_LIMIT, answer_lexically
from redstring.domain.blocking import LEXICAL_CANDIDATE_LIMIT
from redstring.domain.fusion import (
    DEFAULT_FUSION,
    RRF_K,
    EvidenceFusion,
    FusionStrategy,
    ReciprocalRankFusion,
)
from redstring.domain.query import NormalizedQuery
from redstring.errors import DimensionMismatchError, MissingCapabilityError
from redstring.ports import VectorRecord
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryGraphStore, InMemoryVectorStore
from tests.factories import DEFAULT_TENANT, make_entity

DIMENSION = 384
TENANT = DEFAULT_TENANT
OTHER_TENANT = TenantId(UUID("33333333-3333-4333-8333-333333333333"))
PRIMARY = r"Retriever\(embeddings=\.\.\., vectors=\.\.\., graph=\.\.\.\)"

PEOPLE = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Barbara Liskov", "Edsger Dijkstra"]
ORGANISATIONS = ["ACME Corporation", "Zebra Holdings", "Analytical Engines Ltd"]


def fixed_id(n: int) -> EntityId:
    """An id whose string order is `n`'s order, so iteration order is chosen, not hoped for."""
    return EntityId(UUID(f"00000000-0000-4000-8000-{n:012x}"))


class CountingProvider(FakeEmbeddingProvider):
    """The fake provider, counting every call on either side."""

    def __init__(self, *, dimension: int) -> None:
        super().__init__(dimension=dimension)
        self.calls = 0

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return await super().embed(texts)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1  # the base query side delegates to `embed`; count it once
        return await FakeEmbeddingProvider.embed(self, texts)


class OppositeQueryProvider(FakeEmbeddingProvider):
    """An asymmetric provider: a query points opposite to the same text as a document."""

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return [[-x for x in vector] for vector in await self.embed(texts)]


class RebuildingGraphStore(InMemoryGraphStore):
    """A graph store whose reads hand back equal but freshly built entities.

    No port promises object identity, so an adapter that deserialises on
    every read (as any database-backed one does) is legitimate.
    """

    async def get_entities(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Entity]:
        return [_rebuilt(e) for e in await super().get_entities(entity_ids, tenant_id)]

    async def find_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId
    ) -> dict[str, list[Entity]]:
        groups = await super().find_by_blocking_keys(keys, tenant_id)
        return {key: [_rebuilt(e) for e in group] for key, group in groups.items()}


def _rebuilt(entity: Entity) -> Entity:
    return Entity.model_validate(entity.model_dump())


class Stores:
    """A provider and both stores, with helpers that write entities the way a projection does."""

    def __init__(
        self,
        *,
        graph: InMemoryGraphStore | None = None,
        embeddings: FakeEmbeddingProvider | None = None,
    ) -> None:
        self.embeddings = embeddings or FakeEmbeddingProvider(dimension=DIMENSION)
        self.vectors = InMemoryVectorStore(dimension=DIMENSION)
        self.graph = graph or InMemoryGraphStore()

    def retriever(self, fusion: FusionStrategy = DEFAULT_FUSION) -> Retriever:
        return Retriever(
            embeddings=self.embeddings, vectors=self.vectors, graph=self.graph, fusion=fusion
        )

    async def add(self, *entities: Entity) -> None:
        await self.graph.upsert(entities)
        await self.add_vectors(*entities)

    async def add_vectors(self, *entities: Entity) -> None:
        vectors = await self.embeddings.embed([entity.name for entity in entities])
        await self.vectors.upsert(
            [
                VectorRecord(
                    tenant_id=entity.tenant_id,
                    entity_id=entity.id,
                    entity_type=entity.entity_type,
                    vector=vector,
                )
                for entity, vector in zip(entities, vectors, strict=True)
            ]
        )


def corpus(tenant_id: TenantId = TENANT) -> list[Entity]:
    people = [make_entity(name, tenant_id=tenant_id) for name in PEOPLE]
    orgs = [
        make_entity(name, tenant_id=tenant_id, entity_type="organisation") for name in ORGANISATIONS
    ]
    return people + orgs


async def populated(**kwargs: object) -> Stores:
    stores = Stores(**kwargs)  # type: ignore[arg-type]
    await stores.add(*corpus())
    return stores


def names(result: RetrievalResult) -> list[str]:
    return [match.entity.name for match in result.matches]


@pytest.mark.asyncio
async def test_an_exact_name_is_retrieved() -> None:
    stores = await populated()
    for mode in RetrievalMode:
        result = await stores.retriever().retrieve("Grace Hopper", TENANT, mode=mode)
        assert names(result)[0] == "Grace Hopper", mode
        assert result.query == "Grace Hopper"


@pytest.mark.asyncio
async def test_two_tenants_holding_the_same_entity_id_never_cross() -> None:
    """The composite-key case, forced: one id, two tenants, two different names."""
    shared = fixed_id(7)
    stores = Stores()
    await stores.add(
        make_entity("Ada Lovelace", tenant_id=TENANT, id=shared),
        make_entity("Ada Lovelock", tenant_id=OTHER_TENANT, id=shared),
    )
    retriever = stores.retriever()
    for mode in RetrievalMode:
        mine = await retriever.retrieve("Ada Lovelace", TENANT, mode=mode)
        theirs = await retriever.retrieve("Ada Lovelace", OTHER_TENANT, mode=mode)
        assert [(m.entity.name, m.entity.tenant_id) for m in mine.matches] == [
            ("Ada Lovelace", TENANT)
        ], mode
        assert [(m.entity.name, m.entity.tenant_id) for m in theirs.matches] == [
            ("Ada Lovelock", OTHER_TENANT)
        ], mode


@pytest.mark.asyncio
async def test_a_vector_match_whose_entity_the_graph_lacks_is_skipped() -> None:
    """The stores are fed independently; a vector ahead of its entity is ordinary."""
    stores = await populated()
    ghost = make_entity("Grace Hopper Jr")
    await stores.add_vectors(ghost)
    result = await stores.retriever().retrieve(
        "Grace Hopper Jr", TENANT, mode=RetrievalMode.SEMANTIC
    )
    assert ghost.id not in {match.entity.id for match in result.matches}
    assert names(result)[0] == "Grace Hopper"


@pytest.mark.asyncio
async def test_a_skipped_dangling_match_is_not_backfilled() -> None:
    """The count: the dangling match costs a slot, and nothing takes its place.

    Four vectors, three entities. The ghost ("Ada Lovelace", vector only)
    ranks second, so the fused top three holds it. "Ada Byron" sits just
    below the cut, so a version that topped up to `k` has something to top
    up with and would return three. `EvidenceFusion` has fixed constants, so
    the case does not move when the default fusion is refitted.
    """
    stores = Stores()
    await stores.add(*[make_entity(n) for n in ["Ada Lovelace Byron", "Ada Lovelock", "Ada Byron"]])
    ghost = make_entity("Ada Lovelace", id=fixed_id(1))
    await stores.add_vectors(ghost)
    retriever = stores.retriever(EvidenceFusion())
    wide = await retriever.retrieve("Ada Lovelace", TENANT, k=10)
    assert "Ada Byron" in names(wide)  # the premise: a resolvable match exists below the cut
    cut = await retriever.retrieve("Ada Lovelace", TENANT, k=3)
    assert names(cut) == ["Ada Lovelace Byron", "Ada Lovelock"]
    semantic = await retriever.retrieve("Ada Lovelace", TENANT, k=3, mode=RetrievalMode.SEMANTIC)
    assert len(semantic.matches) == 2
    assert ghost.id not in {match.entity.id for match in semantic.matches}


@pytest.mark.asyncio
async def test_entity_types_filters_the_lexical_channel_before_k_is_applied() -> None:
    """`k=1` with a better non-matching candidate met and ranked first."""
    stores = Stores()
    ship = make_entity("Ada Lovelace", entity_type="ship", id=fixed_id(1))
    person = make_entity("Ada Lovelace King", id=fixed_id(2))
    await stores.add(ship, person)
    retriever = stores.retriever()
    unfiltered = await retriever.retrieve("Ada Lovelace", TENANT, k=1, mode=RetrievalMode.LEXICAL)
    assert names(unfiltered) == ["Ada Lovelace"]  # the premise: the ship ranks first
    for mode in RetrievalMode:
        result = await retriever.retrieve(
            "Ada Lovelace", TENANT, k=1, entity_types=["person"], mode=mode
        )
        assert [m.entity.id for m in result.matches] == [person.id], mode
    spelled = await retriever.retrieve(
        "Ada Lovelace", TENANT, k=1, entity_types=[" PERSON "], mode=RetrievalMode.LEXICAL
    )
    assert [m.entity.id for m in spelled.matches] == [person.id]


@pytest.mark.asyncio
async def test_a_result_reports_both_component_scores_when_both_channels_ranked() -> None:
    stores = await populated()
    plain_rrf = stores.retriever(fusion=ReciprocalRankFusion())
    result = await plain_rrf.retrieve("Ada Lovelace", TENANT, mode=RetrievalMode.HYBRID)
    top = result.matches[0]
    assert top.entity.name == "Ada Lovelace"
    assert top.semantic == pytest.approx(1.0)
    assert top.lexical == 1.0
    assert top.score == pytest.approx(2 / (RRF_K + 1))
    # The default fusion reads the same two certainties as full evidence (1.0), in the
    # group of names holding every query word (6 + evidence, ADR 0365, 0395).
    default = await stores.retriever().retrieve("Ada Lovelace", TENANT, mode=RetrievalMode.HYBRID)
    assert default.matches[0].entity.name == "Ada Lovelace"
    assert default.matches[0].score == pytest.approx(6.0 + 1.0)


@pytest.mark.asyncio
async def test_a_semantic_only_mode_leaves_lexical_none() -> None:
    stores = await populated()
    result = await stores.retriever().retrieve("Ada Lovelace", TENANT, mode=RetrievalMode.SEMANTIC)
    assert len(result.matches) == len(PEOPLE) + len(ORGANISATIONS)
    assert all(match.lexical is None for match in result.matches)
    assert all(match.semantic is not None for match in result.matches)


@pytest.mark.asyncio
async def test_a_lexical_only_mode_makes_no_embedding_call() -> None:
    provider = CountingProvider(dimension=DIMENSION)
    stores = await populated(embeddings=provider)
    provider.calls = 0
    result = await stores.retriever().retrieve("Ada Lovelace", TENANT, mode=RetrievalMode.LEXICAL)
    assert names(result) == ["Ada Lovelace"]
    assert result.matches[0].semantic is None
    assert provider.calls == 0
    await stores.retriever().retrieve("Ada Lovelace", TENANT, mode=RetrievalMode.HYBRID)
    assert provider.calls == 1  # the counter counts: the hybrid query embeds once


@pytest.mark.asyncio
async def test_entities_are_compared_by_equality_not_identity() -> None:
    """Reads through a store that rebuilds every entity give the same answer."""
    plain = await populated()
    rebuilding = await populated(graph=RebuildingGraphStore())
    for stores in (plain, rebuilding):
        # Filed under both of the query's keys, so it comes back twice as two objects.
        await stores.add(make_entity("Ada Lovelace Byron"))
    for mode in RetrievalMode:
        for k in (2, 10):
            expected = await plain.retriever().retrieve("Ada Lovelace", TENANT, k=k, mode=mode)
            actual = await rebuilding.retriever().retrieve("Ada Lovelace", TENANT, k=k, mode=mode)
            assert actual == expected, (mode, k)
    lexical = await rebuilding.retriever().retrieve(
        "Ada Lovelace", TENANT, k=2, mode=RetrievalMode.LEXICAL
    )
    assert names(lexical) == ["Ada Lovelace", "Ada Lovelace Byron"]
    hybrid = await rebuilding.retriever().retrieve("Ada Lovelace", TENANT)
    ids = [match.entity.id for match in hybrid.matches]
    assert len(ids) == len(set(ids))
    top = hybrid.matches[0]
    assert top.entity == make_entity("Ada Lovelace")
    assert top.semantic is not None
    assert top.lexical is not None


@pytest.mark.asyncio
async def test_mutating_a_result_cannot_change_what_a_later_retrieve_returns() -> None:
    stores = await populated()
    retriever = stores.retriever()
    first = await retriever.retrieve("Ada Lovelace", TENANT)
    snapshot = first.model_copy(deep=True)
    first.matches[0].entity.name = "Mutated"
    first.matches[0].entity.properties["x"] = "y"
    first.matches.clear()
    second = await retriever.retrieve("Ada Lovelace", TENANT)
    assert second == snapshot


@pytest.mark.asyncio
@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
async def test_a_blank_query_raises(blank: str) -> None:
    provider = CountingProvider(dimension=DIMENSION)
    stores = await populated(embeddings=provider)
    provider.calls = 0
    with pytest.raises(ValueError, match="blank"):
        await stores.retriever().retrieve(blank, TENANT)
    with pytest.raises(ValueError, match="blank"):
        await Retriever.lexical_only(graph=stores.graph).retrieve(blank, TENANT)
    assert provider.calls == 0


@pytest.mark.asyncio
async def test_k_zero_returns_nothing_and_a_negative_k_raises() -> None:
    stores = await populated()
    for mode in RetrievalMode:
        empty = await stores.retriever().retrieve("Ada Lovelace", TENANT, k=0, mode=mode)
        assert empty == RetrievalResult(query="Ada Lovelace", matches=[])
        with pytest.raises(ValueError, match="k must be zero or more"):
            await stores.retriever().retrieve("Ada Lovelace", TENANT, k=-1, mode=mode)


@pytest.mark.asyncio
async def test_k_one_and_k_beyond_the_corpus() -> None:
    stores = await populated()
    retriever = stores.retriever()
    everything = await retriever.retrieve("Ada Lovelace", TENANT, k=1000)
    assert len(everything.matches) == len(PEOPLE) + len(ORGANISATIONS)
    one = await retriever.retrieve("Ada Lovelace", TENANT, k=1)
    assert one.matches == everything.matches[:1]


@pytest.mark.asyncio
async def test_empty_entity_types_matches_nothing() -> None:
    """`[]` means nothing matches; `None` means no filter. Same as the port."""
    stores = await populated()
    for mode in RetrievalMode:
        none = await stores.retriever().retrieve("Ada Lovelace", TENANT, entity_types=[], mode=mode)
        assert none.matches == [], mode
        unfiltered = await stores.retriever().retrieve(
            "Ada Lovelace", TENANT, entity_types=None, mode=mode
        )
        assert unfiltered.matches, mode


@pytest.mark.asyncio
async def test_a_provider_and_store_of_different_dimensions_are_refused() -> None:
    """At construction, before any text is embedded."""
    provider = CountingProvider(dimension=384)
    with pytest.raises(DimensionMismatchError) as raised:
        Retriever(
            embeddings=provider,
            vectors=InMemoryVectorStore(dimension=768),
            graph=InMemoryGraphStore(),
        )
    assert (raised.value.expected, raised.value.actual) == (768, 384)
    assert provider.calls == 0


@pytest.mark.asyncio
async def test_more_results_than_k_are_truncated() -> None:
    stores = await populated()
    retriever = stores.retriever()
    for mode in (RetrievalMode.SEMANTIC, RetrievalMode.HYBRID):
        everything = await retriever.retrieve("Ada Lovelace", TENANT, k=20, mode=mode)
        assert len(everything.matches) > 3
        top = await retriever.retrieve("Ada Lovelace", TENANT, k=3, mode=mode)
        assert len(top.matches) == 3
        assert names(top) == names(everything)[:3]


@pytest.mark.asyncio
async def test_hybrid_results_are_ordered_by_fused_score_then_id() -> None:
    stores = await populated()
    plain_rrf = stores.retriever(fusion=ReciprocalRankFusion())
    result = await plain_rrf.retrieve("Ada Lovelace", TENANT, k=20)
    keys = [(-match.score, str(match.entity.id)) for match in result.matches]
    assert keys == sorted(keys)


@pytest.mark.asyncio
async def test_retrieve_embeds_the_query_with_the_query_side_of_the_provider() -> None:
    """With a provider whose query side points the other way, the exact name is last.

    Had `retrieve` called `embed`, "Ada Lovelace" would match itself at 1.0.
    """
    stores = await populated(embeddings=OppositeQueryProvider(dimension=DIMENSION))
    result = await stores.retriever().retrieve("Ada Lovelace", TENANT, mode=RetrievalMode.SEMANTIC)
    assert names(result)[-1] == "Ada Lovelace"
    assert result.matches[-1].semantic == pytest.approx(0.0, abs=1e-6)


@pytest.mark.asyncio
async def test_a_lexical_only_retriever_needs_no_provider_and_defaults_to_lexical() -> None:
    stores = await populated()
    retriever = Retriever.lexical_only(graph=stores.graph)
    result = await retriever.retrieve("Ada Lovelace", TENANT)
    assert names(result) == ["Ada Lovelace"]
    assert (result.matches[0].semantic, result.matches[0].lexical) == (None, 1.0)
    assert result == await retriever.retrieve("Ada Lovelace", TENANT, mode=RetrievalMode.LEXICAL)


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", [RetrievalMode.SEMANTIC, RetrievalMode.HYBRID])
async def test_a_lexical_only_retriever_refuses_the_modes_that_need_a_provider(
    mode: RetrievalMode,
) -> None:
    """HYBRID is refused, not quietly narrowed to its lexical half."""
    stores = await populated()
    retriever = Retriever.lexical_only(graph=stores.graph)
    with pytest.raises(ValueError, match=PRIMARY):
        await retriever.retrieve("Ada Lovelace", TENANT, mode=mode)
    with pytest.raises(ValueError, match=PRIMARY):
        await retriever.retrieve("Ada Lovelace", TENANT, k=0, mode=mode)


@pytest.mark.asyncio
async def test_no_mode_on_the_primary_constructor_means_hybrid() -> None:
    stores = await populated()
    retriever = stores.retriever()
    default = await retriever.retrieve("Ada Lovelace", TENANT)
    assert default == await retriever.retrieve("Ada Lovelace", TENANT, mode=RetrievalMode.HYBRID)
    top = default.matches[0]
    assert top.semantic is not None
    assert top.lexical is not None


@pytest.mark.asyncio
async def test_both_constructors_refuse_a_graph_that_is_not_a_graph_store() -> None:
    """The guard lives in the shared wiring, so neither path can skip it."""
    not_a_graph = InMemoryVectorStore(dimension=DIMENSION)
    with pytest.raises(MissingCapabilityError, match="find_ids_by_blocking_keys"):
        Retriever.lexical_only(graph=not_a_graph)  # type: ignore[arg-type]
    with pytest.raises(MissingCapabilityError, match="get_entities"):
        Retriever(
            embeddings=FakeEmbeddingProvider(dimension=DIMENSION),
            vectors=InMemoryVectorStore(dimension=DIMENSION),
            graph=not_a_graph,  # type: ignore[arg-type]
        )


def numbered(n: int) -> EntityId:
    return EntityId(UUID(f"00000000-0000-4000-8000-{n:012x}"))


@pytest.mark.asyncio
async def test_the_type_filter_applies_before_the_lexical_candidate_cut() -> None:
    """More people than the cut share every key with the query and sort first; the filter
    must still reach the one organisation that shares fewer."""
    graph = InMemoryGraphStore()
    people = [make_entity("Acme Lovelace", id=numbered(n)) for n in range(1, CANDIDATE_LIMIT + 20)]
    company = make_entity("Acme Holdings", entity_type="organization", id=numbered(999))
    await graph.upsert([*people, company])
    retriever = Retriever.lexical_only(graph=graph)
    unfiltered = await retriever.retrieve("Acme Lovelace", TENANT, k=CANDIDATE_LIMIT + 50)
    assert company.id not in {m.entity.id for m in unfiltered.matches}  # the premise: cut
    only = await retriever.retrieve("Acme Lovelace", TENANT, entity_types=["organization"])
    assert names(only) == ["Acme Holdings"]


@pytest.mark.asyncio
async def test_a_filtered_walk_stops_once_enough_candidates_of_the_type_are_found() -> None:
    graph = InMemoryGraphStore()
    crowd = [
        make_entity(f"Acme Unit{n:03d}", entity_type="organization", id=numbered(n))
        for n in range(1, 3 * LEXICAL_CANDIDATE_LIMIT)
    ]
    await graph.upsert(crowd)
    result = await Retriever.lexical_only(graph=graph).retrieve(
        "Acme", TENANT, k=3, entity_types=["organization"]
    )
    assert [m.entity.id for m in result.matches] == [numbered(1), numbered(2), numbered(3)]


@pytest.mark.asyncio
async def test_a_hybrid_result_says_how_it_fused_and_with_which_numbers() -> None:
    """`explain` shows this label: the fusion and the lexical weight it used (issue 26)."""
    stores = await populated()
    default = await stores.retriever().retrieve("Ada Lovelace", TENANT)
    plain_rrf = await stores.retriever(fusion=ReciprocalRankFusion()).retrieve("Ada", TENANT)
    lexical = await stores.retriever().retrieve("Ada", TENANT, mode=RetrievalMode.LEXICAL)
    semantic = await stores.retriever().retrieve("Ada", TENANT, mode=RetrievalMode.SEMANTIC)
    assert default.fusion == (
        "pooled_evidence lexical_floor=0.45 lexical_weight=0.85 power=2 depth=10"
    )
    assert plain_rrf.fusion == "rrf k=60"
    assert lexical.fusion is None
    assert semantic.fusion is None


@pytest.mark.asyncio
async def test_a_hybrid_search_hands_the_fusion_how_the_lexical_first_covers_the_query() -> None:
    """ADR 0540: four words no name holds are weighed as a short query's (0.85; the word
    count alone said 0.6); a lexical first lacking a word another name holds, at 0.6."""
    stores = Stores()
    await stores.add(
        make_entity("New Taiwan Dollar", tenant_id=TENANT, entity_type="currency"),
        make_entity("Round Cell Liposarcoma", tenant_id=TENANT, entity_type="disease"),
        make_entity("Renal Cell Carcinoma", tenant_id=TENANT, entity_type="disease"),
    )
    retriever = stores.retriever()
    foreign = await retriever.retrieve("nuevo dolar taiwanes oficial", TENANT)
    lookalike = await retriever.retrieve("renal liposarcoma in adults", TENANT)
    assert names(foreign)[0] == "New Taiwan Dollar"
    assert (
        foreign.fusion == "pooled_evidence lexical_floor=0.45 lexical_weight=0.85 power=2 depth=10"
    )
    assert lookalike.fusion == (
        "pooled_evidence lexical_floor=0.45 lexical_weight=0.6 power=2 depth=10"
    )


@pytest.mark.asyncio
async def test_the_lexical_channel_reads_a_words_stem_in_every_candidates_names() -> None:
    """ADR 0540: no name holds "lipodsystrophic" or "syndromes" whole, but the second
    candidate holds "syndrome", so the query is not one of words the tenant does not know;
    no candidate holds a stem of "dolar" or "nowozelandzki"."""
    stores = Stores()
    await stores.add(
        make_entity("Lipodystrophy", tenant_id=TENANT, entity_type="disease"),
        make_entity("Congenital syndrome", tenant_id=TENANT, entity_type="disease"),
        make_entity("New Zealand Dollar", tenant_id=TENANT, entity_type="currency"),
    )
    plural = await answer_lexically(
        stores.graph, NormalizedQuery.of("lipodsystrophic syndromes"), TENANT, None
    )
    foreign = await answer_lexically(
        stores.graph, NormalizedQuery.of("dolar nowozelandzki"), TENANT, None
    )
    assert [e.name for e, _ in plural.scored[:2]] == ["Lipodystrophy", "Congenital syndrome"]
    assert plural.cover is not None
    assert (plural.cover.holds, plural.cover.unknown) == (False, False)
    assert foreign.cover is not None
    assert foreign.cover.unknown
