"""`entity_id_from_int` builds the same UUID as `UUID(int=...)`, in every observable way."""

from __future__ import annotations

import copy
import pickle
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.ids import entity_id_from_int

NUMBERS = st.integers(min_value=0, max_value=(1 << 128) - 1)


@given(number=NUMBERS)
def test_an_id_from_its_number_is_the_uuid_of_that_number(number: int) -> None:
    made, reference = entity_id_from_int(number), UUID(int=number)
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


@given(first=NUMBERS, second=NUMBERS)
def test_ids_order_as_their_numbers_and_their_text(first: int, second: int) -> None:
    one, two = entity_id_from_int(first), entity_id_from_int(second)
    assert (one < two) == (str(one) < str(two)) == (first < second)


@pytest.mark.parametrize("number", [-1, 1 << 128])
def test_a_number_outside_128_bits_is_refused(number: int) -> None:
    with pytest.raises(ValueError, match="2\\*\\*128"):
        entity_id_from_int(number)
