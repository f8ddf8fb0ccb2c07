"""Errors of building a graph and of undoing merges."""

from __future__ import annotations

import textwrap

from redstring.domain.errors.arguments import InvalidArgumentError, NotFoundError
from redstring.domain.errors.base import RedstringError

#: The characters of each cause's example a `BuildFailedError` message quotes.
EXAMPLE_CHARACTERS = 300


class BuildError(RedstringError):
    """Building a graph failed: a chunk's extraction, the domain's choice, or the whole build."""


class ChunkExtractionError(BuildError):
    """Strict extraction stopped at a chunk whose model answer could not be used."""

    def __init__(self, *, document_id: str, chunk_index: int, cause: str) -> None:
        self.document_id = document_id
        self.chunk_index = chunk_index
        self.cause = cause
        super().__init__(
            f"extraction of document {document_id!r} failed at chunk {chunk_index}: {cause}. "
            "Run without strict=True to keep the other chunks and get this failure in the report."
        )


class BuildFailedError(BuildError):
    """More of a build's chunks failed than the caller accepts (`max_failed_share`).

    What the build extracted is written and logged all the same; `report` is
    its `GraphBuildReport`. `causes` counts the failed chunks by error class,
    and `examples` gives one message per class.
    """

    def __init__(
        self,
        *,
        failed: int,
        chunks: int,
        max_failed_share: float,
        causes: dict[str, int],
        examples: dict[str, str],
        report: object,
    ) -> None:
        self.failed = failed
        self.chunks = chunks
        self.max_failed_share = max_failed_share
        self.causes = causes
        self.examples = examples
        self.report = report
        grouped = "; ".join(
            f"{count} x {cause}: "
            + textwrap.shorten(examples[cause], width=EXAMPLE_CHARACTERS, placeholder=" ...")
            for cause, count in causes.items()
        )
        super().__init__(
            f"{failed} of {chunks} chunks failed, more than the {max_failed_share:.0%} "
            f"allowed ({grouped}). What was extracted is written. Fix the cause, or accept "
            "partial results with `max_failed_share=1`."
        )


class DomainClassificationError(BuildError):
    """Strict extraction could not get the model to choose a domain schema."""

    def __init__(self, *, cause: str) -> None:
        self.cause = cause
        super().__init__(
            f"the model could not choose a domain schema: {cause}. Pass a domain explicitly, "
            "or run without strict=True to fall back to the general schema."
        )


class MergeNotFoundError(NotFoundError):
    """An undo named an event that is not a merge of that tenant's log."""

    def __init__(self, *, event_id: object, tenant_id: object) -> None:
        self.event_id = event_id
        self.tenant_id = tenant_id
        super().__init__(
            f"event {event_id} is not an EntitiesMerged event in tenant {tenant_id}'s log. "
            "Pass the event_id of a merge from the build report or the log; if it was made "
            "in another tenant, pass that tenant's name as `tenant`."
        )


class MergeAlreadyUndoneError(InvalidArgumentError):
    """An undo named a merge that was undone before."""

    def __init__(self, *, event_id: object) -> None:
        self.event_id = event_id
        super().__init__(
            name="event_id",
            value=event_id,
            requirement="a merge not undone yet",
            message=f"merge {event_id} has already been undone; undoing it twice would "
            "duplicate entities. Nothing was changed.",
        )


class MergeNotUndoableError(InvalidArgumentError):
    """A later merge (or, as its subclass, a later build) changed what a merge to undo involves."""

    def __init__(self, *, event_id: object, later_event_id: object) -> None:
        self.event_id = event_id
        self.later_event_id = later_event_id
        super().__init__(
            name="event_id",
            value=event_id,
            requirement="a merge no later merge involves",
            message=f"merge {event_id} cannot be undone while the later merge {later_event_id} "
            "involves its entities. Undo the later merge first. Nothing was changed.",
        )


class MergeRetiredError(MergeNotUndoableError):
    """A later build retired an entity or relationship of the merge asked to be undone."""

    def __init__(
        self, *, event_id: object, later_event_id: object, retired: str, retired_id: object
    ) -> None:
        self.event_id = event_id
        self.later_event_id = later_event_id
        self.retired = retired
        self.retired_id = retired_id
        InvalidArgumentError.__init__(
            self,
            name="event_id",
            value=event_id,
            requirement="a merge whose entities and relationships no later build retired",
            message=f"merge {event_id} cannot be undone: a later build (event {later_event_id}) "
            f"retired {retired} ({retired_id}), which this merge's entities or relationships "
            "involve, and undoing the merge would bring back what that build removed. This "
            "merge can no longer be undone; undo a merge before rebuilding the documents that "
            "named its entities. Nothing was changed.",
        )
