"""What the in-memory chunk store adds beyond the compliance suite."""

from __future__ import annotations

import pytest

from redstring import InMemoryChunkStore


@pytest.mark.parametrize("dimension", [0, -3])
def test_a_non_positive_dimension_is_refused(dimension: int) -> None:
    with pytest.raises(ValueError, match="dimension must be positive"):
        InMemoryChunkStore(dimension=dimension)
