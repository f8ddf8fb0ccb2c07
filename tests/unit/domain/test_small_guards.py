"""Guards and identities of small domain helpers that no larger test reaches."""

from __future__ import annotations

import numpy as np
import pytest

from redstring.domain.chunk_retrieval import bm25_relative
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.tokenize import Analyzer
from redstring.domain.validation import require_at_least_one, require_callback, require_keys


def test_a_relative_bm25_score_outside_zero_to_top_is_refused() -> None:
    assert bm25_relative(1.5, 3.0) == 0.5
    assert bm25_relative(0.0, 0.0) == 0.0
    for score, top in ((3.5, 3.0), (-0.1, 3.0)):
        with pytest.raises(ValueError, match="lies in"):
            bm25_relative(score, top)


def test_analyzers_of_one_language_hash_alike_and_print_their_language() -> None:
    english, again, german = Analyzer("english"), Analyzer("english"), Analyzer("german")
    assert len({english, again, german}) == 2
    assert hash(english) == hash(again)
    assert repr(german) == "Analyzer('german')"


def test_a_key_list_holding_a_non_str_names_its_place() -> None:
    require_keys(["k:ada", "k:lovelace"])
    with pytest.raises(InvalidArgumentError) as raised:
        require_keys(["k:ada", 7], name="keys")
    assert raised.value.name == "keys[1]"


def test_a_callback_whose_signature_cannot_be_read_is_taken_on_trust() -> None:
    """`max` has no signature `inspect` can read; a lambda of no argument has one, and fails."""
    require_callback("progress", max, called_as="progress(done, total)", arguments=2)
    with pytest.raises(InvalidArgumentError) as raised:
        require_callback("progress", lambda: None, called_as="progress(done, total)", arguments=2)
    assert raised.value.name == "progress"


@pytest.mark.parametrize("value", ["2", True, 2.5, None])
def test_a_count_that_is_no_whole_number_is_refused_by_type(value: object) -> None:
    with pytest.raises(InvalidArgumentError, match="an int of at least 1") as raised:
        require_at_least_one("batch_size", value)
    assert raised.value.name == "batch_size"


def test_a_count_below_one_is_refused_and_a_numpy_count_is_taken() -> None:
    with pytest.raises(InvalidArgumentError, match="batch_size must be at least 1, got 0"):
        require_at_least_one("batch_size", 0)
    require_at_least_one("batch_size", np.int64(3))
