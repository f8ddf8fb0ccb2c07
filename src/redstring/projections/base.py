"""What every projection is: something that folds one event into a store."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from redstring.domain.events import Event


@runtime_checkable
class Projection(Protocol):
    """Folds events into one store. Folding an event twice must change nothing.

    `name` keys the projection's recorded position in the log (ADR 0132).
    """

    name: str

    async def apply(self, event: Event) -> None:
        """Fold `event`; events a projection does not use are ignored."""
        ...
