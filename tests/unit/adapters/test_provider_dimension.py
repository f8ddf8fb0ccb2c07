"""An embedding provider checks `dimension` where it is given, by the stores' one rule.

A numpy integer is a whole number and becomes an `int` there, so a client opening
a database with the provider takes it; anything else that is no positive whole
number is `InvalidArgumentError` naming `dimension`, never a raw error of its type.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from redstring import Redstring, SourceDocument
from redstring.errors import InvalidArgumentError
from redstring.ports import EmbeddingProvider
from redstring.providers import FakeEmbeddingProvider, OpenAICompatibleEmbeddingProvider


def _openai(dimension: object) -> EmbeddingProvider:
    return OpenAICompatibleEmbeddingProvider(
        base_url="http://127.0.0.1:9/v1",
        model="m",
        dimension=dimension,  # type: ignore[arg-type]
    )


def _fake(dimension: object) -> EmbeddingProvider:
    return FakeEmbeddingProvider(dimension=dimension)  # type: ignore[arg-type]


PROVIDERS = pytest.mark.parametrize("make", [_fake, _openai], ids=["fake", "openai"])


@PROVIDERS
@pytest.mark.parametrize("given", [np.int64(16), np.int32(16), np.uint16(16), 16])
def test_a_whole_number_of_any_integer_type_is_taken_as_an_int(
    make: Callable[[object], EmbeddingProvider], given: object
) -> None:
    provider = make(given)
    assert provider.dimension == 16
    assert type(provider.dimension) is int


@pytest.mark.parametrize("given", [np.int64(16), np.uint16(16)])
def test_a_client_takes_a_provider_given_a_numpy_dimension(tmp_path: Path, given: object) -> None:
    with Redstring(tmp_path / "x.db", embeddings=_fake(given)) as rs:
        rs.index([SourceDocument(id="a", text="Ada wrote the first program.")])
        assert rs.describe().dimension == 16
        assert rs.passages("Ada")[0].semantic is not None


@PROVIDERS
@pytest.mark.parametrize(
    "given",
    [Decimal("NaN"), Decimal(16), "16", 16.0, Fraction(16, 1), True, 0, -3, np.int64(0), None],
)
def test_anything_else_is_refused_naming_dimension(
    make: Callable[[object], EmbeddingProvider], given: object
) -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        make(given)
    assert refused.value.name == "dimension"
    assert "a positive int, the length of the embedding vectors" in str(refused.value)
