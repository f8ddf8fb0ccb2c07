"""The facts the write path records: one event per change, state-carrying.

Each event carries the state its change results in (the entities as written,
not a diff to re-derive), so folding it is an upsert or a delete: idempotent,
and a fold of the whole log into empty stores rebuilds them. The types live
in the domain, below the `EventLog` port that stores them (ADR 0031).

`sequence` is assigned by the log when the event is appended (1, 2, ... per
tenant); an event not yet appended has `sequence=None`.
"""

from __future__ import annotations

from typing import Annotated, Literal
from uuid import UUID, uuid4

from pydantic import BaseModel, Field, TypeAdapter

from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Entity, Relationship
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.vector import VectorRecord


class BaseEvent(BaseModel):
    """Fields every event has."""

    tenant_id: TenantId
    event_id: UUID = Field(default_factory=uuid4)
    sequence: int | None = Field(default=None, ge=1)


class DocumentExtracted(BaseEvent):
    """Entities and relationships as written after extracting `document_id`."""

    kind: Literal["document_extracted"] = "document_extracted"
    document_id: str
    entities: list[Entity]
    relationships: list[Relationship]


class DocumentChunked(BaseEvent):
    """`chunks` became the whole of `document_id` in the chunk store."""

    kind: Literal["document_chunked"] = "document_chunked"
    document_id: str
    chunks: list[StoredChunk]


class EntitiesEmbedded(BaseEvent):
    """These vectors were computed for these entities.

    `model` names the embedding model (its class name when the provider does
    not name it; `None` in events written before it was recorded) and
    `dimension` is the vectors' length (`None` likewise).
    """

    kind: Literal["entities_embedded"] = "entities_embedded"
    records: list[VectorRecord]
    model: str | None = None
    dimension: int | None = Field(default=None, ge=1)


class EntitiesMerged(BaseEvent):
    """`merged` were folded into the survivor; carries everything an undo needs.

    `survivor_before`/`survivor_after` are the survivor's state either side;
    `relationships_removed` are every relationship that touched a merged
    entity; `relationships_added` are the redirected ones that did not
    already exist (self-loops dropped). `score` is the similarity on 0..1.
    """

    kind: Literal["entities_merged"] = "entities_merged"
    survivor_before: Entity
    survivor_after: Entity
    merged: list[Entity]
    relationships_removed: list[Relationship]
    relationships_added: list[Relationship]
    score: float = Field(ge=0.0, le=1.0)

    @property
    def merged_ids(self) -> list[EntityId]:
        """The ids of the merged-away entities."""
        return [entity.id for entity in self.merged]


class EntitiesRetired(BaseEvent):
    """Re-extracting `document_id` no longer supports these entities.

    `retired` had no other source document and are gone, with
    `relationships_removed` (every relationship touching one of them);
    `updated` are still supported elsewhere and lose `document_id` from their
    sources (their state after). Relationships the document stated and no
    longer states go the same way: those it alone stated are in
    `relationships_removed` too, the others in `relationships_updated`.
    """

    kind: Literal["entities_retired"] = "entities_retired"
    document_id: str
    retired: list[Entity]
    relationships_removed: list[Relationship]
    updated: list[Entity]
    relationships_updated: list[Relationship] = Field(default_factory=list)

    @property
    def retired_ids(self) -> list[EntityId]:
        """The ids of the retired entities."""
        return [entity.id for entity in self.retired]


class MergeUndone(BaseEvent):
    """The merge `merge_event_id` was reversed: the inverse of its `EntitiesMerged`."""

    kind: Literal["merge_undone"] = "merge_undone"
    merge_event_id: UUID
    survivor_restored: Entity
    restored: list[Entity]
    relationships_restored: list[Relationship]
    relationships_removed: list[Relationship]


Event = Annotated[
    DocumentExtracted
    | DocumentChunked
    | EntitiesEmbedded
    | EntitiesMerged
    | MergeUndone
    | EntitiesRetired,
    Field(discriminator="kind"),
]

_EVENT = TypeAdapter[Event](Event)


def event_to_json(event: Event) -> str:
    """The JSON form a durable log stores."""
    return _EVENT.dump_json(event).decode()


def event_from_json(text: str) -> Event:
    """The event `event_to_json` wrote; `ValidationError` for anything else."""
    return _EVENT.validate_json(text)
