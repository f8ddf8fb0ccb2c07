"""The openers refuse a dimension that is not a positive int, naming it (found by the campaign)."""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring.errors import InvalidArgumentError
from redstring.stores import open_postgres, open_sqlite

BAD = [0, -4, "4", 2.5, True]


@pytest.mark.parametrize("dimension", BAD)
def test_open_sqlite_refuses_a_bad_dimension_before_creating_the_file(
    tmp_path: Path, dimension: object
) -> None:
    path = tmp_path / "new.db"
    with pytest.raises(InvalidArgumentError) as refused:
        open_sqlite(path, dimension=dimension)  # type: ignore[arg-type]
    assert refused.value.name == "dimension"
    assert not path.exists()


@pytest.mark.asyncio
@pytest.mark.parametrize("dimension", BAD)
async def test_open_postgres_refuses_a_bad_dimension_before_connecting(dimension: object) -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        await open_postgres("postgresql://nobody@127.0.0.1:1/none", dimension=dimension)  # type: ignore[arg-type]
    assert refused.value.name == "dimension"
