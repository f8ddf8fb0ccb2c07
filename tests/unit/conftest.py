"""Fixtures the unit tests of several packages share."""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring import Redstring
from redstring.providers import FakeEmbeddingProvider
from tests.unit.written_elsewhere import NOTE


@pytest.fixture
def written_at_64(tmp_path: Path) -> Path:
    """A SQLite file whose passages were embedded at 64 dimensions."""
    db = tmp_path / "d64.db"
    with Redstring(db, embeddings=FakeEmbeddingProvider(dimension=64)) as rs:
        rs.index([NOTE])
    return db
