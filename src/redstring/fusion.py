"""How the retrievers fuse their semantic and lexical channels (ADRs 0060, 0120, 0121).

`AdaptiveFusion` is both retrievers' default; `EvidenceFusion` and
`ReciprocalRankFusion` are one argument away (`Retriever(..., fusion=...)`).
Your own strategy implements `FusionStrategy`, reading the query as a
`NormalizedQuery`.
"""

from __future__ import annotations

from redstring.domain.fusion import (
    AdaptiveFusion,
    EvidenceFusion,
    FusionStrategy,
    ReciprocalRankFusion,
)
from redstring.domain.query import NormalizedQuery

__all__ = [
    "AdaptiveFusion",
    "EvidenceFusion",
    "FusionStrategy",
    "NormalizedQuery",
    "ReciprocalRankFusion",
]
