"""What a store cannot hold and give back is refused before any write, alike on every store.

Issue 14 items 4 and 5: a lone surrogate reached SQLite as a
`UnicodeEncodeError` (memory kept it), and NaN or infinity in `properties`
was kept by memory but read back as null from SQLite.
"""

from __future__ import annotations

import math
from typing import Any
from uuid import uuid4

import pytest

from redstring import Relationship, SourceDocument, StoredChunk, build_graph, index_documents
from redstring.errors import InvalidArgumentError
from redstring.providers import FakeLlmProvider
from redstring.stores import InMemoryGraphStore
from tests.factories import DEFAULT_TENANT, make_entity
from tests.unit.boundary.conftest import Stores

pytestmark = pytest.mark.asyncio

SURROGATE = "Ada\ud800"

BAD_ENTITIES: list[tuple[dict[str, Any], str]] = [
    ({"name": SURROGATE}, "entities[0].name"),
    ({"entity_type": "per\udfffson"}, "entities[0].entity_type"),
    ({"description": SURROGATE}, "entities[0].description"),
    ({"aliases": ["Ada", SURROGATE]}, "entities[0].aliases[1]"),
    ({"source_document_ids": [SURROGATE]}, "entities[0].source_document_ids[0]"),
    ({"properties": {"born": math.nan}}, "entities[0].properties['born']"),
    ({"properties": {"range": [1.0, math.inf]}}, "entities[0].properties['range'][1]"),
    ({"properties": {"nested": {"low": -math.inf}}}, "entities[0].properties['nested']['low']"),
    ({"properties": {"note": SURROGATE}}, "entities[0].properties['note']"),
]


@pytest.mark.parametrize(("fields", "name"), BAD_ENTITIES)
async def test_an_entity_no_store_could_give_back_is_refused(
    stores: Stores, fields: dict[str, Any], name: str
) -> None:
    # An explicit id: deriving one from a surrogate name is itself refused.
    bad = make_entity(**{"name": "Ada Lovelace", "id": uuid4(), **fields})
    good = make_entity("Grace Hopper")
    with pytest.raises(InvalidArgumentError) as caught:
        await stores.graph.upsert([bad, good])
    assert caught.value.name == name
    assert await stores.graph.get_entities([good.id], DEFAULT_TENANT) == []


async def test_a_relationship_with_a_non_finite_property_is_refused(stores: Stores) -> None:
    ada, grace = make_entity("Ada Lovelace"), make_entity("Grace Hopper")
    edge = Relationship(
        tenant_id=DEFAULT_TENANT,
        source_id=ada.id,
        target_id=grace.id,
        relationship_type="knows",
        properties={"weight": math.nan},
    )
    with pytest.raises(InvalidArgumentError) as caught:
        await stores.graph.upsert([ada, grace], [edge])
    assert caught.value.name == "relationships[0].properties['weight']"


async def test_finite_properties_read_back_equal_on_every_store(stores: Stores) -> None:
    ada = make_entity("Ada Lovelace", properties={"born": 1815.5, "tags": ["a", -2.5e-3]})
    await stores.graph.upsert([ada])
    assert await stores.graph.get_entities([ada.id], DEFAULT_TENANT) == [ada]


def _chunk(text: str, source_id: str = "notes", **fields: Any) -> StoredChunk:
    row = {"tenant_id": DEFAULT_TENANT, "source_id": source_id, "text": text, **fields}
    # Validated as a row, not built: the constructor refuses a source id no document
    # could have (ADR 0585), and the store must refuse one that reaches it all the same.
    return StoredChunk.model_validate({**row, "index": 0, "start": 0, "end": len(text)})


@pytest.mark.parametrize(
    ("chunk", "name"),
    [
        (lambda: _chunk(SURROGATE), "chunks[0].text"),
        (lambda: _chunk("Ada wrote.", source_id=SURROGATE), "chunks[0].source_id"),
        (lambda: _chunk("Ada wrote.", metadata={"page": math.inf}), "chunks[0].metadata['page']"),
    ],
)
async def test_a_chunk_no_store_could_give_back_is_refused(
    stores: Stores, chunk: Any, name: str
) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        await stores.chunks.upsert_chunks([chunk()])
    assert caught.value.name == name
    with pytest.raises(InvalidArgumentError):
        await stores.chunks.replace_source(chunk().source_id, DEFAULT_TENANT, [chunk()])


async def test_replace_source_refuses_a_surrogate_source_id(stores: Stores) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        await stores.chunks.replace_source(SURROGATE, DEFAULT_TENANT, [])
    assert caught.value.name == "source_id"


BAD_DOCUMENTS: list[tuple[dict[str, Any], str]] = [
    ({"id": SURROGATE}, "documents[0].id"),
    ({"text": SURROGATE}, "documents[0].text"),
    ({"title": SURROGATE}, "documents[0].title"),
    ({"metadata": {"score": math.nan}}, "documents[0].metadata['score']"),
]


def _document(fields: dict[str, Any]) -> SourceDocument:
    return SourceDocument.model_validate({"id": "notes", "text": "Ada wrote.", **fields})


@pytest.mark.parametrize(("fields", "name"), BAD_DOCUMENTS)
async def test_index_documents_refuses_a_document_before_writing(
    stores: Stores, fields: dict[str, Any], name: str
) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        await index_documents(
            [_document({}), _document({"id": "other", **fields})]
            if "id" not in fields
            else [_document(fields)],
            chunks=stores.chunks,
            tenant_id=DEFAULT_TENANT,
        )
    assert caught.value.name.endswith(name.removeprefix("documents[0]"))
    assert await stores.chunks.list_chunks(DEFAULT_TENANT) == []


@pytest.mark.parametrize(("fields", "name"), BAD_DOCUMENTS)
async def test_build_graph_refuses_a_document_before_any_model_call(
    fields: dict[str, Any], name: str
) -> None:
    model = FakeLlmProvider(by_substring={})
    with pytest.raises(InvalidArgumentError) as caught:
        await build_graph(
            [_document(fields)],
            provider=model,
            graph=InMemoryGraphStore(),
            tenant_id=DEFAULT_TENANT,
        )
    assert caught.value.name == name


async def test_a_str_tenant_id_is_refused_by_the_write_paths(stores: Stores) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        await index_documents(
            [_document({})],
            chunks=stores.chunks,
            tenant_id=str(DEFAULT_TENANT),  # type: ignore[arg-type]
        )
    assert caught.value.name == "tenant_id"
    with pytest.raises(InvalidArgumentError):
        await stores.chunks.replace_source(
            "notes",
            str(DEFAULT_TENANT),  # type: ignore[arg-type]
            [],
        )
