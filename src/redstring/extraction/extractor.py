"""Extracting one document: chunk it, ask the model per chunk, merge what came back.

Writes no store. Chunks are asked concurrently, at most `concurrency` at a
time across every document one `Extractor` extracts at once (B33); the
result does not depend on the order answers arrive in, because chunk results
are combined in chunk order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from redstring.domain.chunk import StoredChunk, TextSpan
from redstring.domain.chunking import SlidingWindowChunker
from redstring.domain.document import SourceDocument
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import (
    ChunkExtractionError,
    MalformedCompletionError,
    RedstringError,
)
from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.merging import combine_relationships, combine_sightings
from redstring.domain.normalization import normalize_name
from redstring.domain.validation import require_at_least_one, require_count
from redstring.extraction.answer import ExtractionAnswer
from redstring.extraction.domains import DomainSchema
from redstring.extraction.pairs import ask_pairs
from redstring.extraction.prompts import extraction_system_prompt, extraction_user_prompt
from redstring.extraction.vocabulary import TypeTally, conform, extraction_schema
from redstring.ports.llm_provider import LlmProvider


class ChunkFailure(BaseModel):
    """A chunk whose answer could not be used: which one, the error's class, and its message."""

    document_id: str
    chunk_index: int
    error_type: str
    cause: str


class ExtractionProgress(BaseModel):
    """Progress through one document's chunks: reported as it starts (0 done) and after
    each chunk finishes."""

    document_id: str
    chunks_done: int
    chunks_total: int
    chunks_failed: int


ProgressCallback = Callable[[ExtractionProgress], None]


class DocumentExtraction(BaseModel):
    """What one document yielded.

    Entities and relationships are ordered by id string; `chunks` are in
    document order, each listing the ids of the entities extracted from it.
    `relationships_dropped` counts relationships naming an entity that was
    not extracted from the document, or whose two ends are one entity
    (`Ada -knows-> Ada`, as merging drops such a link too). `types_outside_domain` counts the types
    answered outside the domain's lists, by spelling; `entities_dropped_by_type`
    and `relationships_dropped_by_type` the items dropped for one (ADR 0152).
    """

    document_id: str
    domain: str
    entities: list[Entity]
    relationships: list[Relationship]
    chunks: list[StoredChunk]
    failures: list[ChunkFailure]
    relationships_dropped: int
    types_outside_domain: dict[str, int] = Field(default_factory=dict)
    entities_dropped_by_type: int = 0
    relationships_dropped_by_type: int = 0


@dataclass
class _ChunkResult:
    entities: dict[EntityId, Entity] = field(default_factory=dict)
    by_name: dict[str, EntityId] = field(default_factory=dict)
    answer: ExtractionAnswer | None = None
    tally: TypeTally = field(default_factory=TypeTally)


class Extractor:
    """Extracts documents with `provider`, `concurrency` chunks at a time (at least 1).

    The bound holds across concurrent `extract` calls of one extractor. With
    `pair_questions` above 0, a chunk whose answer names entities but no
    relationship is asked about up to that many pairs of them, one question
    each (`ask_pairs`): what a small model leaves out of one answer.
    """

    def __init__(
        self,
        provider: LlmProvider,
        *,
        chunker: SlidingWindowChunker | None = None,
        concurrency: int = 4,
        pair_questions: int = 0,
    ) -> None:
        require_at_least_one("concurrency", concurrency)
        self._pair_questions = require_count("pair_questions", pair_questions)
        self._provider = provider
        self._chunker = chunker or SlidingWindowChunker()
        self._semaphore = asyncio.Semaphore(concurrency)

    async def extract(
        self,
        document: SourceDocument,
        tenant_id: TenantId,
        *,
        domain: DomainSchema,
        progress: ProgressCallback | None = None,
        strict: bool = False,
    ) -> DocumentExtraction:
        """Extract `document` into `tenant_id`'s vocabulary under `domain`.

        A chunk whose model call raises a `RedstringError` (empty, refused,
        malformed answer) is listed in `failures` and the others are kept;
        with `strict=True` the first such chunk raises `ChunkExtractionError`.
        """
        spans = self._chunker.split(document.text)
        system = extraction_system_prompt(domain)
        schema = extraction_schema(domain)
        failures: list[ChunkFailure] = []
        done = 0

        async def one(index: int, span: TextSpan) -> _ChunkResult:
            nonlocal done
            async with self._semaphore:
                tally = TypeTally()
                try:
                    answer, tally = await self._ask(
                        _Question(system, schema, domain), document, span, index, len(spans)
                    )
                except RedstringError as error:
                    if strict:
                        raise ChunkExtractionError(
                            document_id=document.id, chunk_index=index, cause=str(error)
                        ) from error
                    failures.append(
                        ChunkFailure(
                            document_id=document.id,
                            chunk_index=index,
                            error_type=type(error).__name__,
                            cause=str(error),
                        )
                    )
                    answer = None
                finally:
                    done += 1
                    if progress is not None:
                        progress(
                            ExtractionProgress(
                                document_id=document.id,
                                chunks_done=done,
                                chunks_total=len(spans),
                                chunks_failed=len(failures),
                            )
                        )
            result = _chunk_entities(answer, document, tenant_id)
            result.tally = tally
            return result

        if progress is not None:  # shown before the first (slowest) answer
            progress(
                ExtractionProgress(
                    document_id=document.id, chunks_done=0, chunks_total=len(spans), chunks_failed=0
                )
            )
        results = await _gather_in_order([one(i, span) for i, span in enumerate(spans)])
        entities, relationships, dropped = _combine(results, document.id, tenant_id)
        tally = TypeTally()
        for result in results:
            tally.add(result.tally)
        chunks = [
            StoredChunk(
                tenant_id=tenant_id,
                source_id=document.id,
                text=span.text,
                index=index,
                start=span.start,
                end=span.end,
                entity_ids=sorted(result.entities, key=str),
                metadata=dict(document.metadata),
            )
            for index, (span, result) in enumerate(zip(spans, results, strict=True))
        ]
        return DocumentExtraction(
            document_id=document.id,
            domain=domain.name,
            entities=sorted(entities.values(), key=lambda entity: str(entity.id)),
            relationships=sorted(relationships.values(), key=lambda rel: str(rel.id)),
            chunks=chunks,
            failures=sorted(failures, key=lambda failure: failure.chunk_index),
            relationships_dropped=dropped,
            types_outside_domain=dict(sorted(tally.outside.items())),
            entities_dropped_by_type=tally.entities_dropped,
            relationships_dropped_by_type=tally.relationships_dropped,
        )

    async def _ask(
        self, question: _Question, document: SourceDocument, span: TextSpan, index: int, total: int
    ) -> tuple[ExtractionAnswer, TypeTally]:
        """The chunk's answer held to the domain's types.

        An answer that parsed but broke the schema (a type off the lists, say)
        is read loosely and conformed; one that does not fit even that raises
        `MalformedCompletionError`.
        """
        try:
            raw = await self._provider.complete_json(
                system=question.system,
                user=extraction_user_prompt(document, span, index, total),
                schema=question.schema,
            )
        except MalformedCompletionError as error:
            if error.answer is None:
                raise
            raw = error.answer
        try:
            answer, tally = conform(ExtractionAnswer.model_validate(raw), question.domain)
        except ValidationError as error:
            raise MalformedCompletionError(
                f"the answer for chunk {index} does not fit the extraction model: "
                f"{error.errors()[0]['msg']} at {error.errors()[0]['loc']}. Retry the chunk."
            ) from error
        if self._pair_questions:
            answer = await ask_pairs(
                self._provider, question.domain, span, answer, limit=self._pair_questions
            )
        return answer, tally


@dataclass(frozen=True)
class _Question:
    system: str
    schema: dict[str, Any]
    domain: DomainSchema


async def _gather_in_order(
    jobs: list[Coroutine[Any, Any, _ChunkResult]],
) -> list[_ChunkResult]:
    """Run the chunk jobs; under strict, the lowest-index failure is raised, others cancelled."""
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(job) for job in jobs]
    except* ChunkExtractionError as failed:
        first = min(
            (error for error in failed.exceptions if isinstance(error, ChunkExtractionError)),
            key=lambda error: error.chunk_index,
        )
        raise first from first.__cause__
    return [task.result() for task in tasks]


def _chunk_entities(
    answer: ExtractionAnswer | None, document: SourceDocument, tenant_id: TenantId
) -> _ChunkResult:
    result = _ChunkResult(answer=answer)
    if answer is None:
        return result
    for item in answer.entities:
        entity = Entity(
            tenant_id=tenant_id,
            entity_type=item.type,
            name=item.name,
            description=item.description,
            properties=item.properties,
            source_document_ids=[document.id],
        )
        held = result.entities.get(entity.id)
        result.entities[entity.id] = entity if held is None else combine_sightings(held, entity)
        result.by_name.setdefault(normalize_name(item.name), entity.id)
    return result


def _combine(
    results: list[_ChunkResult], document_id: str, tenant_id: TenantId
) -> tuple[dict[EntityId, Entity], dict[RelationshipId, Relationship], int]:
    entities: dict[EntityId, Entity] = {}
    by_name: dict[str, EntityId] = {}
    for result in results:
        for entity_id, entity in result.entities.items():
            held = entities.get(entity_id)
            entities[entity_id] = entity if held is None else combine_sightings(held, entity)
        for name, entity_id in result.by_name.items():
            by_name.setdefault(name, entity_id)
    relationships: dict[RelationshipId, Relationship] = {}
    dropped = 0
    for result in results:
        if result.answer is None:
            continue
        for item in result.answer.relationships:
            source = _resolve(item.source, result.by_name, by_name)
            target = _resolve(item.target, result.by_name, by_name)
            if source is None or target is None or source == target:
                dropped += 1  # an end not extracted, or one entity linked to itself
                continue
            relationship = Relationship(
                tenant_id=tenant_id,
                source_id=source,
                target_id=target,
                relationship_type=item.type,
                description=item.description,
                source_document_ids=[document_id],
            )
            held_rel = relationships.get(relationship.id)
            relationships[relationship.id] = (
                relationship if held_rel is None else combine_relationships(held_rel, relationship)
            )
    return entities, relationships, dropped


def _resolve(
    name: str, in_chunk: dict[str, EntityId], in_document: dict[str, EntityId]
) -> EntityId | None:
    """The entity a relationship end names: this chunk's first, else the document's."""
    form = normalize_name(name)
    return in_chunk.get(form, in_document.get(form))
