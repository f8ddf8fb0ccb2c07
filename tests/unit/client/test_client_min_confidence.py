"""The client hands `min_confidence` to the retrievers and each hit its `confidence`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from redstring import AsyncRedstring, Redstring, SourceDocument
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.exact_search import validate_search_args

DOCUMENTS = [
    SourceDocument(id="a.md", text="Ada Lovelace wrote the first program for the engine."),
    SourceDocument(id="b.md", text="The engine room smelled of oil."),
    SourceDocument(id="c.md", text="Tea with lemon and honey."),
]


def test_passages_carry_confidence_and_min_confidence_drops_the_unsure(tmp_path: Path) -> None:
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(DOCUMENTS)
        hits = rs.passages("Ada program engine", k=5).matches
        assert len(hits) == 2
        assert all(hit.confidence is not None for hit in hits)
        sure, unsure = sorted((hit.confidence or 0.0 for hit in hits), reverse=True)
        assert sure > unsure
        whole = rs.passages("Ada program engine", k=5, min_confidence=(sure + unsure) / 2)
        assert whole.matches == hits  # the surest reaches it: the whole answer stands
        above = rs.passages("Ada program engine", k=5, min_confidence=min(1.0, sure + 1e-6))
        assert above.matches == []
        assert (
            rs.passages("Ada program engine", min_confidence=None).matches
            == rs.passages("Ada program engine").matches
        )


def test_both_search_methods_pass_a_bad_min_confidence_to_the_retriever(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with AsyncRedstring(tmp_path / "x.db", embeddings="none") as rs:
            await rs.index(DOCUMENTS)
            with pytest.raises(InvalidArgumentError, match="min_confidence"):
                await rs.search("Ada", min_confidence=2.0)
            with pytest.raises(InvalidArgumentError, match="min_confidence"):
                await rs.passages("Ada", min_confidence=-1.0)

    asyncio.run(scenario())
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        with pytest.raises(InvalidArgumentError, match="min_confidence"):
            rs.search("Ada", min_confidence=1.5)
        assert rs.search("Ada", min_confidence=0.5).matches == []  # no graph built


def test_numbers_read_from_numpy_are_taken_as_the_numbers_they_are(tmp_path: Path) -> None:
    """A numpy float or integer (`np.float32(0.1)`, `np.int64(2)`) is a number: accepted and
    used as the Python `float` or `int` it equals; a bool still is not."""
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(DOCUMENTS)
        plain = rs.passages("Ada program engine", k=2, min_confidence=0.1)
        given = rs.passages("Ada program engine", k=np.int64(2), min_confidence=np.float32(0.1))
        assert given.matches == plain.matches
        assert len(rs.passages("engine", k=np.int32(1)).matches) == 1
        for bad in ({"k": np.bool_(True)}, {"k": True}, {"min_confidence": np.float64("nan")}):
            with pytest.raises(InvalidArgumentError):
                rs.passages("engine", **bad)  # type: ignore[arg-type]


def test_a_store_search_takes_a_numpy_k_and_min_score_as_python_numbers() -> None:
    k, score = validate_search_args(np.int64(3), np.float32(0.5))
    assert (k, score) == (3, 0.5)
    assert type(k) is int
    assert type(score) is float
