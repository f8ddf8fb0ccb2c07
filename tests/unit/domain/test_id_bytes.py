"""`entity_id_from_bytes` builds the same UUID as `UUID(bytes=...)`, in every observable way."""

from __future__ import annotations

import copy
import pickle
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.ids import entity_id_from_bytes


@given(raw=st.binary(min_size=16, max_size=16))
def test_an_id_from_bytes_is_the_uuid_of_those_bytes(raw: bytes) -> None:
    made, reference = entity_id_from_bytes(raw), UUID(bytes=raw)
    assert type(made) is UUID
    assert made == reference
    assert hash(made) == hash(reference)
    assert (made.int, made.bytes, str(made), repr(made)) == (
        reference.int,
        reference.bytes,
        str(reference),
        repr(reference),
    )
    assert made.is_safe is reference.is_safe
    assert (made.version, made.variant) == (reference.version, reference.variant)
    assert pickle.loads(pickle.dumps(made)) == reference
    assert copy.deepcopy(made) == reference
    with pytest.raises(TypeError, match="immutable"):
        made.int = 0  # type: ignore[misc]


@given(first=st.binary(min_size=16, max_size=16), second=st.binary(min_size=16, max_size=16))
def test_ids_from_bytes_order_as_their_text(first: bytes, second: bytes) -> None:
    one, two = entity_id_from_bytes(first), entity_id_from_bytes(second)
    assert (one < two) == (str(one) < str(two)) == (first < second)


@pytest.mark.parametrize("length", [0, 15, 17])
def test_anything_but_sixteen_bytes_is_refused(length: int) -> None:
    with pytest.raises(ValueError, match="16 bytes"):
        entity_id_from_bytes(bytes(length))
