"""How the retrievers fuse their semantic and lexical channels,
and how likely each result is right.

`PooledEvidenceFusion` is `Retriever`'s default and `ConvexFusion`
`ChunkRetriever`'s; `ReciprocalRankFusion` and `EvidenceFusion` are one
argument away (`Retriever(..., fusion=...)`).
Your own strategy implements `FusionStrategy`, reading the query as a
`NormalizedQuery`; `PooledEvidenceFusion` also reads the lexical first's
`WordCover` (which query words it and the tenant's names hold).
A result's `confidence`, the chance that it is right, comes from a
`ConfidenceCalibration`: two `ChannelCalibration`s and a Platt map
(`intercept`, `scale`) of the surer one's logit. `ENTITY_CONFIDENCE`
(`Retriever`) and `PASSAGE_CONFIDENCE` (`ChunkRetriever`) are fitted for the
local MiniLM model; another model's, refitted with
`python -m scripts.fit_confidence` and `python -m scripts.calibration --fit`,
is one argument away (`confidence=...`). `SUGGESTED_MIN_CONFIDENCE` is the
threshold measured for callers that prefer an empty answer to an unrelated one.
"""

from __future__ import annotations

from redstring.domain.confidence import (
    ENTITY_CONFIDENCE,
    PASSAGE_CONFIDENCE,
    SUGGESTED_MIN_CONFIDENCE,
    ChannelCalibration,
    ConfidenceCalibration,
)
from redstring.domain.convex_fusion import ConvexFusion
from redstring.domain.fusion import (
    EvidenceFusion,
    FusionStrategy,
    PooledEvidenceFusion,
    ReciprocalRankFusion,
)
from redstring.domain.lexical import WordCover
from redstring.domain.query import NormalizedQuery

__all__ = [
    "ENTITY_CONFIDENCE",
    "PASSAGE_CONFIDENCE",
    "SUGGESTED_MIN_CONFIDENCE",
    "ChannelCalibration",
    "ConfidenceCalibration",
    "ConvexFusion",
    "EvidenceFusion",
    "FusionStrategy",
    "NormalizedQuery",
    "PooledEvidenceFusion",
    "ReciprocalRankFusion",
    "WordCover",
]
