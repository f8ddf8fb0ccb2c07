"""`jsonb_text` changes only exponent-form numbers, never strings (B143)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from redstring.storage.postgres_json import jsonb_text
from redstring.testing.json_numbers import typed

_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.sampled_from('1e+-."\\ x0'), max_size=8)
)
_JSON = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(_JSON)
def test_the_rewritten_text_reads_back_equal_and_of_the_same_types(value: object) -> None:
    rewritten = jsonb_text(json.dumps(value))
    assert typed(json.loads(rewritten)) == typed(value)  # type: ignore[arg-type]


def test_a_float_in_exponent_form_is_written_positionally() -> None:
    assert jsonb_text('{"a": 1e+20, "b": "1e+20", "c": -2.5e-3}') == (
        '{"a": 100000000000000000000.0, "b": "1e+20", "c": -0.0025}'
    )
