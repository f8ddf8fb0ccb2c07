"""The chunk result types and the scale of their component scores."""

from __future__ import annotations

import pytest

from redstring.domain.chunk import StoredChunk
from redstring.domain.chunk_retrieval import ChunkMatch, ScoredChunk, bm25_to_unit
from tests.factories import DEFAULT_TENANT


def a_chunk() -> StoredChunk:
    return StoredChunk(
        tenant_id=DEFAULT_TENANT, source_id="doc", text="Ada", index=0, start=0, end=3
    )


def test_a_channel_that_did_not_rank_is_none_not_zero() -> None:
    unranked = ScoredChunk(chunk=a_chunk(), score=0.5, semantic=None, bm25=None)
    ranked_zero = ScoredChunk(chunk=a_chunk(), score=0.5, semantic=0.0, bm25=0.0)
    assert (unranked.semantic, unranked.bm25, unranked.lexical) == (None, None, None)
    assert (ranked_zero.semantic, ranked_zero.bm25, ranked_zero.lexical) == (0.0, 0.0, 0.0)


def test_lexical_is_bm25_over_bm25_plus_one_and_is_serialised() -> None:
    scored = ScoredChunk(chunk=a_chunk(), score=0.1, bm25=3.0)
    assert scored.lexical == pytest.approx(0.75)
    assert scored.model_dump()["lexical"] == pytest.approx(0.75)


def test_the_lexical_map_keeps_order_and_stays_below_one() -> None:
    values = [bm25_to_unit(s) for s in (0.0, 0.1, 1.0, 10.0, 1e6)]
    assert values == sorted(values)
    assert values[0] == 0.0
    assert all(v < 1.0 for v in values)
    with pytest.raises(ValueError, match="never negative"):
        bm25_to_unit(-0.1)


@pytest.mark.parametrize(
    ("field", "bad"), [("semantic", 1.01), ("semantic", -0.01), ("bm25", -1.0)]
)
def test_a_component_score_off_its_scale_is_rejected(field: str, bad: float) -> None:
    with pytest.raises(ValueError, match=field):
        ScoredChunk.model_validate({"chunk": a_chunk(), "score": 0.5, field: bad})
    with pytest.raises(ValueError, match="score"):
        ChunkMatch(chunk=a_chunk(), score=1.5)
