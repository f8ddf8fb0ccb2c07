"""Vectors as the stores hold them, and the one scale of a vector match score.

## The score scale

`VectorMatch.score` is cosine similarity mapped onto 0..1 as
`(1 + cosine) / 2`: 1.0 is the same direction, 0.5 orthogonal, 0.0 opposite.
"Score" means different things across vector databases (a distance where
lower is better, an inner product, a raw cosine on -1..1); every adapter
converts to this scale, and nothing above an adapter sees another.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from redstring.domain.ids import EntityId, TenantId


class VectorRecord(BaseModel):
    """The embedding of one entity, as a vector store holds it.

    `model` names the embedding model that made `vector`: `None` when it is
    not known (a row written before stores kept it). An `EntitiesEmbedded`
    event names its model once, for all its records, and the projection
    writes it onto each, so a record in the log names none (and its JSON
    leaves the key out, as before).
    """

    tenant_id: TenantId
    entity_id: EntityId
    entity_type: str
    vector: list[float] = Field(repr=False)  # printed records stay short
    model: str | None = Field(default=None, exclude_if=lambda model: model is None)


class VectorMatch(BaseModel):
    """One search hit: an entity and its score on 0..1 (see the module docstring)."""

    entity_id: EntityId
    entity_type: str
    score: float = Field(ge=0.0, le=1.0)


def cosine_to_score(cosine: float) -> float:
    """Map a cosine on -1..1 onto the 0..1 match scale, clamping rounding error."""
    return min(1.0, max(0.0, (1.0 + cosine) / 2.0))
