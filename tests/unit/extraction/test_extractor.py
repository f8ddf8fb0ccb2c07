"""Extraction on scripted model answers: merging, dropping, failures, concurrency, domains."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from redstring import entity_id_for
from redstring.domain.chunking import SlidingWindowChunker
from redstring.domain.document import SourceDocument
from redstring.domain.errors import (
    ChunkExtractionError,
    DomainClassificationError,
    UnknownDomainError,
)
from redstring.errors import EmptyCompletionError, MalformedCompletionError, RefusedCompletionError
from redstring.extraction.choose import decide_domain
from redstring.extraction.domains import AUTO, DomainSchema, bundled_domains, resolve_domain
from redstring.extraction.extractor import ExtractionProgress, Extractor
from redstring.extraction.prompts import CLASSIFY_MARKER
from redstring.providers import FakeLlmProvider, Refusal
from tests.factories import DEFAULT_TENANT

TEXT = """Ada Lovelace wrote notes on the engine.

Charles Babbage designed the Analytical Engine.

Ada Lovelace corresponded with Babbage for years."""
DOC = SourceDocument(id="doc-1", text=TEXT, title="Engines")
CHUNKER = SlidingWindowChunker(size=60, overlap=0)
#: the types the scripted answers use (an answer is held to its domain's types)
ENGINES = DomainSchema(
    name="engines",
    description="People and the engines they made.",
    entity_types=("person", "product"),
    relationship_types=("knows", "designed"),
)


def ent(name: str, kind: str = "person", description: str = "", **props: Any) -> dict[str, Any]:
    return {"name": name, "type": kind, "description": description, "properties": props}


def rel(source: str, target: str, kind: str = "knows") -> dict[str, Any]:
    return {"source": source, "target": target, "type": kind}


ANSWERS: dict[str, Any] = {
    "wrote notes": {
        "entities": [ent("Ada Lovelace", description="writer", born=1815)],
        "relationships": [rel("Ada Lovelace", "Nobody Extracted")],
    },
    "designed the": {
        "entities": [
            ent("Charles Babbage", description="inventor"),
            ent("Analytical Engine", "product"),
        ],
        "relationships": [rel("Charles Babbage", "Analytical Engine", "designed")],
    },
    "corresponded": {
        "entities": [
            ent("ada  LOVELACE", description="a mathematician and writer", born=1816, died=1852)
        ],
        # "Charles Babbage" is resolved from another chunk of the same document.
        "relationships": [rel("Ada Lovelace", "Charles Babbage")],
    },
}


def extractor(provider: FakeLlmProvider, concurrency: int = 4) -> Extractor:
    return Extractor(provider, chunker=CHUNKER, concurrency=concurrency)


@pytest.mark.asyncio
async def test_an_entity_seen_in_two_chunks_is_one_entity_under_the_merge_rule() -> None:
    result = await extractor(FakeLlmProvider(by_substring=ANSWERS)).extract(
        DOC, DEFAULT_TENANT, domain=ENGINES
    )
    ada_id = entity_id_for(DEFAULT_TENANT, "person", "Ada Lovelace")
    [ada] = [entity for entity in result.entities if entity.id == ada_id]
    assert ada.name == "Ada Lovelace"  # the first sighting's spelling
    assert ada.description == "a mathematician and writer"  # the longer description
    assert ada.properties == {"born": 1815, "died": 1852}  # earlier value of a key wins
    assert ada.source_document_ids == ["doc-1"]
    assert len(result.entities) == 3
    assert [c.index for c in result.chunks] == [0, 1, 2]
    assert result.chunks[0].entity_ids == [ada_id]
    assert result.chunks[2].entity_ids == [ada_id]
    assert all(c.text == TEXT[c.start : c.end] for c in result.chunks)
    assert result.failures == []


@pytest.mark.asyncio
async def test_re_extracting_a_document_yields_the_same_ids() -> None:
    first = await extractor(FakeLlmProvider(by_substring=ANSWERS)).extract(
        DOC, DEFAULT_TENANT, domain=ENGINES
    )
    second = await extractor(FakeLlmProvider(by_substring=ANSWERS), concurrency=1).extract(
        DOC, DEFAULT_TENANT, domain=ENGINES
    )
    assert first == second


@pytest.mark.asyncio
async def test_a_relationship_to_an_unextracted_entity_is_dropped_and_counted() -> None:
    result = await extractor(FakeLlmProvider(by_substring=ANSWERS)).extract(
        DOC, DEFAULT_TENANT, domain=ENGINES
    )
    assert result.relationships_dropped == 1
    kinds = sorted(r.relationship_type for r in result.relationships)
    assert kinds == ["designed", "knows"]
    ids = {e.id for e in result.entities}
    assert all(r.source_id in ids and r.target_id in ids for r in result.relationships)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("bad", "error_type"),
    [
        ("{truncated", MalformedCompletionError.__name__),
        ("", EmptyCompletionError.__name__),
        (Refusal("no"), RefusedCompletionError.__name__),
        ({"entities": [{"name": "  ", "type": "person"}]}, MalformedCompletionError.__name__),
        ({"entities": "nope"}, MalformedCompletionError.__name__),
    ],
)
async def test_a_failed_chunk_is_reported_and_the_chunks_after_it_are_kept(
    bad: Any, error_type: str
) -> None:
    answers = {**ANSWERS, "wrote notes": bad}
    result = await extractor(FakeLlmProvider(by_substring=answers)).extract(
        DOC, DEFAULT_TENANT, domain=ENGINES
    )
    [failure] = result.failures
    assert (failure.document_id, failure.chunk_index, failure.error_type) == (
        "doc-1",
        0,
        error_type,
    )
    assert failure.cause
    names = sorted(e.name for e in result.entities)
    assert names == ["Analytical Engine", "Charles Babbage", "ada  LOVELACE"]
    assert result.chunks[0].entity_ids == []


@pytest.mark.asyncio
async def test_strict_mode_raises_naming_the_chunk() -> None:
    answers = {**ANSWERS, "designed the": "{truncated"}
    with pytest.raises(ChunkExtractionError, match="chunk 1") as caught:
        await extractor(FakeLlmProvider(by_substring=answers)).extract(
            DOC, DEFAULT_TENANT, domain=ENGINES, strict=True
        )
    assert isinstance(caught.value.__cause__, MalformedCompletionError)


class _CountingProvider:
    """A real `LlmProvider` wrapping the fake that records how many calls overlap."""

    def __init__(self, inner: FakeLlmProvider) -> None:
        self.inner = inner
        self.in_flight = 0
        self.peak = 0

    async def complete_json(
        self, *, system: str, user: str, schema: dict[str, Any]
    ) -> dict[str, Any]:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.001)
        try:
            return await self.inner.complete_json(system=system, user=user, schema=schema)
        finally:
            self.in_flight -= 1


@pytest.mark.asyncio
@pytest.mark.parametrize("limit", [1, 2])
async def test_concurrency_is_bounded_and_progress_reaches_the_total(limit: int) -> None:
    long_text = "\n\n".join(f"Person{i} met Person{i + 1} at the lab." for i in range(8))
    answer = {"entities": [ent("Someone")], "relationships": []}
    provider = _CountingProvider(FakeLlmProvider(by_substring={"Person": answer}))
    seen: list[ExtractionProgress] = []
    result = await Extractor(provider, chunker=CHUNKER, concurrency=limit).extract(
        SourceDocument(id="long", text=long_text),
        DEFAULT_TENANT,
        domain=ENGINES,
        progress=seen.append,
    )
    assert len(result.chunks) == 8
    assert provider.peak == limit
    assert [p.chunks_done for p in seen] == list(range(9))  # 0: the document starts
    assert all(p.chunks_total == 8 for p in seen)


@pytest.mark.asyncio
async def test_a_blank_document_asks_the_model_nothing() -> None:
    provider = FakeLlmProvider()
    result = await extractor(provider).extract(
        SourceDocument(id="blank", text="  \n "), DEFAULT_TENANT, domain=ENGINES
    )
    assert (result.entities, result.chunks, provider.calls) == ([], [], [])


def test_concurrency_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Extractor(FakeLlmProvider(), concurrency=0)


@pytest.mark.asyncio
async def test_the_domain_schema_specialises_the_system_prompt() -> None:
    provider = FakeLlmProvider(by_substring=ANSWERS)
    science = resolve_domain("science")
    await extractor(provider).extract(DOC, DEFAULT_TENANT, domain=science)
    assert all("uses_method" in call.system for call in provider.calls)


def test_the_bundled_domains_load_and_an_unknown_name_says_which_exist() -> None:
    assert {"general", "people_and_organisations", "science", "business"} <= set(bundled_domains())
    with pytest.raises(UnknownDomainError, match="general"):
        resolve_domain("astrology")


@pytest.mark.asyncio
async def test_auto_asks_the_model_and_reports_its_confidence() -> None:
    provider = FakeLlmProvider(
        by_substring={CLASSIFY_MARKER: {"domain": "science", "confidence": 0.8}}
    )
    decision = await decide_domain(AUTO, provider, [DOC])
    assert (decision.name, decision.chosen_by, decision.confidence) == ("science", "model", 0.8)
    assert TEXT[:20] in provider.calls[0].user


@pytest.mark.asyncio
async def test_an_explicit_domain_asks_the_model_nothing() -> None:
    provider = FakeLlmProvider()
    decision = await decide_domain("business", provider, [DOC])
    assert (decision.name, decision.chosen_by, decision.confidence) == ("business", "caller", None)
    assert provider.calls == []


@pytest.mark.asyncio
async def test_a_failed_classification_falls_back_to_general_or_raises_under_strict() -> None:
    unknown = {"domain": "astrology", "confidence": 0.9}
    decision = await decide_domain(AUTO, FakeLlmProvider([unknown]), [DOC])
    assert (decision.name, decision.chosen_by) == ("general", "fallback")
    assert decision.failure is not None
    assert "astrology" in decision.failure
    with pytest.raises(DomainClassificationError):
        await decide_domain(AUTO, FakeLlmProvider([Refusal()]), [DOC], strict=True)


@pytest.mark.asyncio
async def test_a_dropped_relationship_does_not_stop_the_ones_after_it() -> None:
    answer = {
        "entities": [ent("Ada"), ent("Bob")],
        "relationships": [rel("Ada", "Nobody"), rel("Ada", "Bob"), rel("Ghost", "Bob")],
    }
    result = await extractor(FakeLlmProvider([answer])).extract(
        SourceDocument(id="one", text="Ada met Bob."), DEFAULT_TENANT, domain=ENGINES
    )
    assert result.relationships_dropped == 2
    assert [r.relationship_type for r in result.relationships] == ["knows"]


@pytest.mark.asyncio
async def test_a_relationship_whose_ends_are_one_entity_is_dropped_and_counted() -> None:
    answer = {
        "entities": [ent("Ada Lovelace"), ent("Bob")],
        "relationships": [
            rel("Ada Lovelace", "Ada Lovelace"),
            rel("Ada Lovelace", "ada  LOVELACE"),  # the same entity by its normalised name
            rel("Ada Lovelace", "Bob"),
        ],
    }
    result = await extractor(FakeLlmProvider([answer])).extract(
        SourceDocument(id="one", text="Ada Lovelace met Bob."), DEFAULT_TENANT, domain=ENGINES
    )
    assert result.relationships_dropped == 2
    assert [(r.source_id == r.target_id) for r in result.relationships] == [False]
