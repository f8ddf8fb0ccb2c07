"""Building a graph in one call: composes a language model, the extractor, consolidation,
the event log and the projections into the graph, vector and chunk stores.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, Field

from redstring.composition.build_passages import (
    check_passage_store,
    embed_passages,
    keep_passage_vectors,
)
from redstring.composition.build_policy import (
    DEFAULT_MAX_FAILED_SHARE,
    answer_format,
    check_build_arguments,
    failure_causes,
    preflight,
    require_enough_chunks,
)
from redstring.composition.chunk_merges import chunks_after_merge
from redstring.composition.reextraction import graph_support, resolve_survivors, retirement
from redstring.composition.remembered_answers import (
    RememberedAnswers,
    keep_format,
    recall_format,
    remembering,
)
from redstring.composition.transactions import one_transaction
from redstring.consolidation.consolidator import DEFAULT_MERGE_THRESHOLD, consolidate
from redstring.domain.chunking import SlidingWindowChunker
from redstring.domain.document import SourceDocument
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import (
    DimensionMismatchError,
    DuplicateDocumentError,
    IncompleteVectorSetupError,
    InvalidArgumentError,
)
from redstring.domain.events import (
    DocumentChunked,
    DocumentExtracted,
    EntitiesMerged,
    EntitiesRetired,
    Event,
)
from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.merging import combine_relationships, combine_sightings
from redstring.domain.validation import require_callback, require_documents, require_tenant_id
from redstring.events.in_memory import InMemoryEventLog
from redstring.extraction.choose import decide_domain
from redstring.extraction.domains import AUTO, DomainSpec
from redstring.extraction.extractor import (
    ChunkFailure,
    DocumentExtraction,
    Extractor,
    ProgressCallback,
)
from redstring.ports.chunk_store import ChunkReader, ChunkWriter
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.event_log import EventLog
from redstring.ports.graph_store import GraphStore
from redstring.ports.llm_provider import LlmProvider
from redstring.ports.vector_store import VectorWriter
from redstring.projections.base import Projection
from redstring.projections.chunks import ChunkProjection
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import EventSink, catch_up
from redstring.projections.vectors import VectorProjection, embedded_event


class MergeSummary(BaseModel):
    """One merge of the build: the event to undo it by, who survived, who was folded in."""

    event_id: UUID
    survivor_id: EntityId
    survivor_name: str
    merged_ids: list[EntityId]
    merged_names: list[str]
    score: float


class GraphBuildReport(BaseModel):
    """What a `build_graph` call did.

    Counts are of distinct ids written by this build. `domain_confidence` is
    the model's confidence on 0..1 when it chose the domain (`None` when the
    caller chose it). `failures` lists every chunk whose answer was unusable
    and `failure_causes` counts them by error class. `relationships_dropped`
    counts the relationships an answer stated but no graph can hold: an end
    not extracted, or both ends one entity. `types_outside_domain`
    counts the types the model answered outside the domain's lists, and
    `entities_dropped_by_type` / `relationships_dropped_by_type` the items
    dropped for one. `entities_retired` counts entities whose
    only source document, re-extracted, no longer names them;
    `relationships_retired` the relationships removed with them or no longer
    stated by any document. `answer_format` is how the model server
    was asked for JSON (`None` when the provider does not say).
    `chunks_reused` counts the chunks answered from the answers an earlier
    run kept, without asking the model.
    `first_sequence`/`last_sequence` bound the events this build appended
    (`None` when it appended none).
    """

    tenant_id: TenantId
    documents: int
    entities_written: int
    relationships_written: int
    relationships_dropped: int
    types_outside_domain: dict[str, int] = Field(default_factory=dict)
    entities_dropped_by_type: int = 0
    relationships_dropped_by_type: int = 0
    entities_retired: int = 0
    relationships_retired: int = 0
    chunks_written: int
    chunks_reused: int = 0
    merges: list[MergeSummary]
    failures: list[ChunkFailure]
    failure_causes: dict[str, int] = Field(default_factory=dict)
    answer_format: str | None = None
    domain: str
    domain_chosen_by: Literal["caller", "model", "fallback"]
    domain_confidence: float | None
    domain_failure: str | None
    events_appended: int
    first_sequence: int | None
    last_sequence: int | None


async def build_graph(
    documents: Iterable[SourceDocument],
    *,
    provider: LlmProvider,
    graph: GraphStore,
    tenant_id: TenantId,
    embeddings: EmbeddingProvider | None = None,
    vectors: VectorWriter | None = None,
    chunks: ChunkWriter | None = None,
    log: EventLog | None = None,
    domain: DomainSpec = AUTO,
    merge_threshold: float = DEFAULT_MERGE_THRESHOLD,
    concurrency: int = 4,
    progress: ProgressCallback | None = None,
    strict: bool = False,
    chunker: SlidingWindowChunker | None = None,
    max_failed_share: float = DEFAULT_MAX_FAILED_SHARE,
    pair_questions: int = 0,
) -> GraphBuildReport:
    """Extract `documents` into `tenant_id`'s graph, consolidate, and fold every store.

    Every change is appended to `log` (a fresh in-memory log when `None`) and
    folded into `graph` and, when given, `vectors` (entities embedded with
    `embeddings`) and `chunks` (passages embedded too, carried in
    `DocumentChunked`). Documents are extracted together, at most
    `concurrency` chunks at once across all of them, and written in
    document order. `merge_threshold` is on 0..1. Before any model call it
    raises `DimensionMismatchError` when `embeddings` and `vectors` (or a
    chunk store with vectors) disagree, `IncompleteVectorSetupError` when only one is given,
    `InvalidArgumentError` naming a tenant id that is not a UUID or a document
    field that is not encodable text or finite JSON,
    `DuplicateDocumentError` for a repeated document id, `InvalidArgumentError` for a
    bad threshold or concurrency, and `UnknownDomainError` for an unknown
    domain name. Then it checks the model server (`preflight`), raising
    `ModelServerError` and its kin before any chunk. With `strict=True` a
    failed chunk raises `ChunkExtractionError`; documents before it stay
    written and logged. Otherwise, when more than `max_failed_share` (0..1)
    of the chunks failed it raises `BuildFailedError` carrying the report,
    after writing what was extracted; `max_failed_share=1.0` accepts any
    partial result.

    With a named model (`ServedLlmProvider`) and a log that keeps answers
    (`AnswerMemory`), every answer is kept as it arrives, under a key naming
    the model, the prompts (chunk text included) and the schema; a question
    asked before, the domain question too, is answered from there without
    asking the model, and the server is asked first in the answer format it
    took before. `pair_questions` above 0 asks about up to that many pairs of
    a chunk's entities, one question each, when its answer states no
    relationship (`Extractor`).
    """
    docs = list(documents)
    require_tenant_id(tenant_id)
    require_documents(docs)
    require_build_progress(progress)
    _check_inputs(docs, provider, embeddings, vectors, merge_threshold)
    check_passage_store(embeddings, chunks)
    check_build_arguments(
        max_failed_share=max_failed_share, pair_questions=pair_questions, domain=domain
    )
    projections: list[Projection] = [GraphProjection(graph)]
    if vectors is not None:
        projections.append(VectorProjection(vectors))
    if chunks is not None:
        projections.append(ChunkProjection(chunks))
    sink = EventSink(log if log is not None else InMemoryEventLog(), projections)
    stores = (sink.log, graph, vectors, chunks)
    served = remembering(provider, sink.log, tenant_id)
    answers = None if served is None else RememberedAnswers(*served, tenant_id)
    extractor = Extractor(
        answers or provider,
        chunker=chunker,
        concurrency=concurrency,
        pair_questions=pair_questions,
    )
    await catch_up(sink.log, tenant_id, projections)  # a fold a crash cut short (ADR 0132)

    await preflight(provider)
    if served is not None:
        await recall_format(*served, tenant_id)
    asked = provider if served is None else RememberedAnswers(*served, tenant_id)
    decision = await decide_domain(domain, asked, docs, strict=strict)
    tally = _Tally()
    # What each document named when last built, from the graph itself (ADR 0620).
    supported = await graph_support(graph, chunks, [document.id for document in docs], tenant_id)
    extractions = [
        asyncio.ensure_future(
            extractor.extract(
                document, tenant_id, domain=decision.domain_schema, progress=progress, strict=strict
            )
        )
        for document in docs
    ]
    try:
        for pending in extractions:  # extracted together, written in document order
            extraction = await pending
            events = await _document_events(
                extraction, graph, chunks, embeddings, tenant_id, supported=supported
            )
            async with one_transaction(*stores):  # events, folds, positions: one commit
                tally.stored += await sink.emit(events)
            tally.add(extraction, events)
    finally:
        for pending in extractions:
            pending.cancel()
        await asyncio.gather(*extractions, return_exceptions=True)
    if served is not None:
        await keep_format(*served, tenant_id)

    async def emit_merge(merge: EntitiesMerged) -> None:
        events: list[Event] = [merge]
        if embeddings is not None:
            events.append(await embedded_event(embeddings, [merge.survivor_after], tenant_id))
        if isinstance(chunks, ChunkReader):
            events += await chunks_after_merge(chunks, merge)
        async with one_transaction(*stores):
            tally.stored.extend(await sink.emit(events))

    merges = await consolidate(
        tally.entity_ids, tenant_id, graph=graph, threshold=merge_threshold, emit=emit_merge
    )
    report = GraphBuildReport(
        tenant_id=tenant_id,
        documents=len(docs),
        entities_written=len(tally.entity_ids),
        relationships_written=len(tally.relationship_ids),
        relationships_dropped=tally.dropped,
        types_outside_domain=dict(sorted(tally.outside.items())),
        entities_dropped_by_type=tally.entities_dropped_by_type,
        relationships_dropped_by_type=tally.relationships_dropped_by_type,
        entities_retired=tally.retired,
        relationships_retired=tally.relationships_retired,
        chunks_written=tally.chunks,
        chunks_reused=0 if answers is None else answers.reused,
        merges=[_summary(merge) for merge in merges],
        failures=tally.failures,
        failure_causes=failure_causes(tally.failures),
        answer_format=answer_format(provider),
        domain=decision.name,
        domain_chosen_by=decision.chosen_by,
        domain_confidence=decision.confidence,
        domain_failure=decision.failure,
        events_appended=sink.appended,
        first_sequence=min(tally.sequences, default=None),
        last_sequence=max(tally.sequences, default=None),
    )
    require_enough_chunks(tally.failures, tally.chunks, max_failed_share, report)
    return report


@dataclass
class _Tally:
    """What the documents of one build wrote, summed for the report."""

    stored: list[Event] = field(default_factory=list)
    failures: list[ChunkFailure] = field(default_factory=list)
    entity_ids: set[EntityId] = field(default_factory=set)
    relationship_ids: set[RelationshipId] = field(default_factory=set)
    outside: Counter[str] = field(default_factory=Counter)
    dropped: int = 0
    entities_dropped_by_type: int = 0
    relationships_dropped_by_type: int = 0
    chunks: int = 0
    retired: int = 0
    relationships_retired: int = 0

    @property
    def sequences(self) -> list[int]:
        """The log positions of the events stored."""
        return [event.sequence for event in self.stored if event.sequence is not None]

    def add(self, extraction: DocumentExtraction, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, DocumentExtracted):
                self.entity_ids.update(entity.id for entity in event.entities)
                self.relationship_ids.update(rel.id for rel in event.relationships)
            elif isinstance(event, EntitiesRetired):
                self.retired += len(event.retired)
                self.relationships_retired += len(event.relationships_removed)
        self.failures += extraction.failures
        self.outside.update(extraction.types_outside_domain)
        self.dropped += extraction.relationships_dropped
        self.entities_dropped_by_type += extraction.entities_dropped_by_type
        self.relationships_dropped_by_type += extraction.relationships_dropped_by_type
        self.chunks += len(extraction.chunks)


async def _document_events(
    extraction: DocumentExtraction,
    graph: GraphStore,
    chunks: ChunkWriter | None,
    embeddings: EmbeddingProvider | None,
    tenant_id: TenantId,
    *,
    supported: Mapping[str, set[EntityId]],
) -> list[Event]:
    """One document's events: extracted (with the stored state), retired, chunked, embedded."""
    resolved = await resolve_survivors(
        graph, extraction.entities, extraction.relationships, extraction.chunks, tenant_id
    )
    entities = await _with_stored_entities(graph, resolved.entities, tenant_id)
    relationships = await _with_stored_relationships(graph, resolved.relationships, tenant_id)
    retired = await retirement(
        graph,
        chunks,
        document_id=extraction.document_id,
        still_named={entity.id for entity in entities},
        still_stated={relationship.id for relationship in relationships},
        tenant_id=tenant_id,
        supported=supported,
    )
    passages = resolved.chunks
    if embeddings is not None and chunks is not None:
        passages = await embed_passages(embeddings, chunks, passages, extraction.document_id)
    elif chunks is not None:
        passages = await keep_passage_vectors(chunks, passages, extraction.document_id)
    events: list[Event] = [
        DocumentExtracted(
            tenant_id=tenant_id,
            document_id=extraction.document_id,
            entities=entities,
            relationships=relationships,
        ),
        *([retired] if retired is not None else []),
        DocumentChunked(tenant_id=tenant_id, document_id=extraction.document_id, chunks=passages),
    ]
    if embeddings is not None:
        events.append(await embedded_event(embeddings, entities, tenant_id))
    return events


def require_build_progress(progress: object) -> None:
    """Refuse a `progress` that is neither `None` nor callable as `progress(step)`:
    `InvalidArgumentError` naming `progress`."""
    require_callback(
        "progress", progress, called_as="progress(step), step an ExtractionProgress", arguments=1
    )


def _check_inputs(
    docs: list[SourceDocument],
    provider: object,
    embeddings: EmbeddingProvider | None,
    vectors: VectorWriter | None,
    merge_threshold: float,
) -> None:
    if not isinstance(provider, LlmProvider):
        raise InvalidArgumentError(
            name="provider",
            value=provider,
            requirement="an LlmProvider (an object with an async complete_json)",
        )
    if embeddings is not None and vectors is None:
        raise IncompleteVectorSetupError(missing="vectors")
    if vectors is not None and embeddings is None:
        raise IncompleteVectorSetupError(missing="embeddings")
    if embeddings is not None and vectors is not None and embeddings.dimension != vectors.dimension:
        raise DimensionMismatchError(
            expected=vectors.dimension,
            actual=embeddings.dimension,
            context="build_graph: the embedding provider against the vector store",
        )
    if not 0.0 <= merge_threshold <= 1.0:
        raise InvalidArgumentError(
            name="merge_threshold",
            value=merge_threshold,
            requirement="on 0..1",
            message=f"merge_threshold must be on 0..1, got {merge_threshold}",
        )
    seen: set[str] = set()
    for document in docs:
        if document.id in seen:
            raise DuplicateDocumentError(document_id=document.id)
        seen.add(document.id)


async def _with_stored_entities(
    graph: GraphStore, entities: list[Entity], tenant_id: TenantId
) -> list[Entity]:
    """Each entity combined with its stored state, so the event carries the state written."""
    held = {
        entity.id: entity
        for entity in await graph.get_entities([e.id for e in entities], tenant_id)
    }
    return [
        combine_sightings(held[entity.id], entity) if entity.id in held else entity
        for entity in entities
    ]


async def _with_stored_relationships(
    graph: GraphStore, relationships: list[Relationship], tenant_id: TenantId
) -> list[Relationship]:
    held: dict[RelationshipId, Relationship] = {}
    for source_id in dict.fromkeys(relationship.source_id for relationship in relationships):
        for stored in await graph.relationships_of(source_id, tenant_id):
            held[stored.id] = stored
    return [
        combine_relationships(held[rel.id], rel) if rel.id in held else rel for rel in relationships
    ]


def _summary(merge: EntitiesMerged) -> MergeSummary:
    return MergeSummary(
        event_id=merge.event_id,
        survivor_id=merge.survivor_after.id,
        survivor_name=merge.survivor_after.name,
        merged_ids=merge.merged_ids,
        merged_names=[entity.name for entity in merge.merged],
        score=merge.score,
    )
