"""Bad arguments to a retrieval are refused at the boundary, naming the argument, on every store.

Issue 14 item 5: `retrieve(k="5")` and friends escaped as bare `TypeError`s,
`k=True` was taken as 1, and a `str` tenant id found nothing in memory but
everything on SQLite and PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import pytest

from redstring import ChunkRetriever, Entity, Retriever
from redstring.errors import InvalidArgumentError
from redstring.providers import FakeEmbeddingProvider
from tests.factories import DEFAULT_TENANT, make_entity
from tests.unit.boundary.conftest import DIMENSION, Stores

pytestmark = pytest.mark.asyncio

BAD_CALLS: list[tuple[dict[str, Any], str]] = [
    ({"k": "5"}, "k"),
    ({"k": 2.5}, "k"),
    ({"k": None}, "k"),
    ({"k": True}, "k"),
    ({"k": -1}, "k"),
    ({"query": None}, "query"),
    ({"query": b"ada"}, "query"),
    ({"query": "Ada\ud800"}, "query"),
    ({"query": "   "}, "query"),
    ({"tenant_id": str(DEFAULT_TENANT)}, "tenant_id"),
]
ENTITY_ONLY: list[tuple[dict[str, Any], str]] = [
    ({"entity_types": [None]}, "entity_types[0]"),
    ({"entity_types": "person"}, "entity_types"),
    ({"entity_types": ["person\udc80"]}, "entity_types[0]"),
]
CHUNK_ONLY: list[tuple[dict[str, Any], str]] = [
    ({"source_ids": [None]}, "source_ids[0]"),
    ({"source_ids": "notes"}, "source_ids"),
]


async def _ada(stores: Stores) -> Entity:
    ada = make_entity("Ada Lovelace")
    await stores.graph.upsert([ada])
    return ada


def _call(overrides: dict[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
    arguments: dict[str, Any] = {"query": "Ada", "tenant_id": DEFAULT_TENANT, "k": 5}
    arguments.update(overrides)
    query = arguments.pop("query")
    tenant = arguments.pop("tenant_id")
    return query, tenant, arguments


@pytest.mark.parametrize(("overrides", "name"), BAD_CALLS + ENTITY_ONLY)
async def test_a_bad_retrieve_argument_is_refused_naming_it(
    stores: Stores, overrides: dict[str, Any], name: str
) -> None:
    await _ada(stores)
    retriever = Retriever(
        embeddings=FakeEmbeddingProvider(dimension=DIMENSION),
        vectors=stores.vectors,
        graph=stores.graph,
    )
    query, tenant, arguments = _call(overrides)
    with pytest.raises(InvalidArgumentError) as caught:
        await retriever.retrieve(query, tenant, **arguments)
    assert caught.value.name == name
    assert name in str(caught.value)


@pytest.mark.parametrize(("overrides", "name"), BAD_CALLS + CHUNK_ONLY)
async def test_a_bad_retrieve_chunks_argument_is_refused_naming_it(
    stores: Stores, overrides: dict[str, Any], name: str
) -> None:
    retriever = ChunkRetriever.lexical_only(chunks=stores.chunks)
    query, tenant, arguments = _call(overrides)
    with pytest.raises(InvalidArgumentError) as caught:
        await retriever.retrieve_chunks(query, tenant, **arguments)
    assert caught.value.name == name


async def test_every_store_answers_a_good_call_alike(stores: Stores) -> None:
    ada = await _ada(stores)
    result = await Retriever.lexical_only(graph=stores.graph).retrieve("Ada", DEFAULT_TENANT, k=1)
    assert [match.entity.id for match in result.matches] == [ada.id]
