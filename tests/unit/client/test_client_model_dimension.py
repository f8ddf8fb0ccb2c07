"""A client whose embedding model makes vectors of another length than its database holds.

A lexical search reads no vector, so it answers whatever the model; a
semantic or hybrid one is refused naming `embeddings` and the ways out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring import AsyncRedstring, Redstring
from redstring.errors import DimensionMismatchError
from redstring.providers import FakeEmbeddingProvider
from tests.unit.cli.mcp_fixture_server import opener_of
from tests.unit.cli.world import ADA, DIMENSION, HOME, populated_stores
from tests.unit.written_elsewhere import NOTE


def test_a_lexical_passage_search_needs_no_model_of_the_databases_dimension(
    written_at_64: Path,
) -> None:
    with Redstring(written_at_64, embeddings=FakeEmbeddingProvider(dimension=384)) as rs:
        [hit] = rs.passages("Lovelace", mode="lexical").matches
        nothing = rs.search("Lovelace", mode="lexical")  # no entities here, and no refusal
    assert hit.source_id == "ada.md"
    assert nothing.matches == []


@pytest.mark.asyncio
async def test_a_lexical_entity_search_needs_no_model_of_the_databases_dimension() -> None:
    stores, _ = await populated_stores()
    other = FakeEmbeddingProvider(dimension=DIMENSION * 2)
    async with AsyncRedstring(
        "in-memory", tenant=HOME, embeddings=other, create=False, opener=opener_of(stores)
    ) as client:
        answer = await client.search("Ada Lovelace", mode="lexical", k=1)
    assert [hit.id for hit in answer.matches] == [str(ADA)]


@pytest.mark.parametrize(
    ("method", "mode"),
    [("passages", None), ("passages", "semantic"), ("search", "hybrid"), ("search", None)],
)
def test_a_search_that_embeds_with_a_model_of_another_dimension_names_the_way_out(
    written_at_64: Path, method: str, mode: str | None
) -> None:
    with (
        Redstring(written_at_64, embeddings=FakeEmbeddingProvider(dimension=384)) as rs,
        pytest.raises(DimensionMismatchError) as refused,
    ):
        getattr(rs, method)("Lovelace", mode=mode)
    message = str(refused.value)
    assert refused.value.name == "embeddings"
    assert "the database holds 64-dimension vectors" in message
    assert "the embedding model makes 384-dimension ones" in message
    assert 'embeddings="none"' in message
    assert 'mode="lexical"' in message
    assert "ChunkRetriever" not in message
    assert "Retriever:" not in message


def test_on_postgres_too_a_lexical_search_needs_no_model_of_the_schemas_dimension(
    postgres_url: str,
) -> None:
    """A schema opens at the dimension it records, as a SQLite file does."""
    with Redstring(postgres_url, embeddings=FakeEmbeddingProvider(dimension=64)) as rs:
        rs.index([NOTE])
    with Redstring(postgres_url, embeddings=FakeEmbeddingProvider(dimension=384)) as rs:
        [hit] = rs.passages("Lovelace", mode="lexical").matches
        with pytest.raises(DimensionMismatchError) as refused:
            rs.passages("Lovelace")
    assert hit.source_id == "ada.md"
    assert refused.value.name == "embeddings"
    assert "the database holds 64-dimension vectors" in str(refused.value)
