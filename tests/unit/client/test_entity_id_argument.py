"""`entity(...)` with a value that is no entity id reports that value as given and its type."""

from __future__ import annotations

from pathlib import Path
from uuid import uuid4

import pytest

from redstring import Redstring
from redstring.errors import InvalidArgumentError, UnknownEntityError


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "got None (NoneType)"),
        (12, "got 12 (int)"),
        ("12", "got '12' (str)"),
        (b"ab", "got b'ab' (bytes)"),
    ],
)
def test_a_value_that_is_no_entity_id_is_shown_as_given(
    tmp_path: Path, value: object, shown: str
) -> None:
    with (
        Redstring(tmp_path / "g.db", embeddings="none") as rs,
        pytest.raises(InvalidArgumentError) as refused,
    ):
        rs.entity(value)  # type: ignore[arg-type]
    assert refused.value.name == "entity_id"
    assert refused.value.value is value
    assert shown in str(refused.value)


def test_a_uuid_and_its_text_are_both_taken(tmp_path: Path) -> None:
    missing = uuid4()
    with Redstring(tmp_path / "g.db", embeddings="none") as rs:
        for given in (missing, str(missing), f" {missing} "):
            with pytest.raises(UnknownEntityError):
                rs.entity(given)
