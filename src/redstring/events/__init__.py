"""The event log: its in-memory adapter, and the event types re-exported from the domain."""

from redstring.domain.events import (
    DocumentChunked,
    DocumentExtracted,
    EntitiesEmbedded,
    EntitiesMerged,
    Event,
    MergeUndone,
)

__all__ = [
    "DocumentChunked",
    "DocumentExtracted",
    "EntitiesEmbedded",
    "EntitiesMerged",
    "Event",
    "MergeUndone",
]
