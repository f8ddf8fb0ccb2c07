"""What `Redstring` and `AsyncRedstring` answer with.

Each prints as the command line prints it and converts with `to_dicts()` (and
`to_pandas()` where pandas is installed): `EntitySearchAnswer` of `EntityHit`s
(`search`), `PassageSearchAnswer` of `PassageHit`s (`passages`),
`EntityAnswer` holding an `EntityDetail` and its `Neighbour`s (`entity`),
`StatsAnswer` of `TenantStats` (`stats`), `TenantCatalogue` (`describe`).
"""

from __future__ import annotations

from redstring.client.answers import (
    EntityAnswer,
    EntityDetail,
    EntityHit,
    EntitySearchAnswer,
    Neighbour,
    PassageHit,
    PassageSearchAnswer,
    StatsAnswer,
    TenantStats,
)
from redstring.client.catalogue import TenantCatalogue

__all__ = [
    "EntityAnswer",
    "EntityDetail",
    "EntityHit",
    "EntitySearchAnswer",
    "Neighbour",
    "PassageHit",
    "PassageSearchAnswer",
    "StatsAnswer",
    "TenantCatalogue",
    "TenantStats",
]
