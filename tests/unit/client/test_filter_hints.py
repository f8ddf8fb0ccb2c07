"""An empty answer of a filter naming what the tenant does not hold says so, naming the
closest held values: the same knowledge, from the same function, as the MCP server's refusal.
"""

from __future__ import annotations

import pytest

from redstring import SourceDocument
from redstring.cli.mcp_errors import unknown_names
from redstring.client.hints import empty_hint
from redstring.client.store_set import StoreSet
from redstring.composition.index_documents import index_documents
from redstring.domain.retrieval import RetrievalMode
from tests.unit.cli.world import HOME, populated_stores

LEXICAL = RetrievalMode.LEXICAL


async def _hint(stores: StoreSet, *, passages: bool, only: list[str]) -> str:
    return await empty_hint(stores, HOME, passages=passages, mode=LEXICAL, min_confidence=None,
                            only=only)  # fmt: skip


@pytest.mark.asyncio
async def test_a_source_given_without_its_folder_is_named_with_the_held_id() -> None:
    stores, _ = await populated_stores()
    assert stores.chunks is not None
    docs = [SourceDocument(id="docs/f001.md", text="Babbage designed the engine.")]
    await index_documents(docs, chunks=stores.chunks, tenant_id=HOME)
    hint = await _hint(stores, passages=True, only=["f001.md"])
    assert hint == (
        f"tenant {HOME} holds no source 'f001.md', so nothing could match. "
        "Closest held: docs/f001.md."
    )
    refusal = unknown_names("sources", ["f001.md"], ["docs/f001.md", "notes.md"])
    assert "Closest held: docs/f001.md." in refusal  # the MCP server knows the same
    deep = "projects/2024/quarterly/reports/summary.md"
    assert f"Closest held: {deep}." in unknown_names("sources", ["summary.md"], [deep])


@pytest.mark.asyncio
async def test_a_misspelt_type_is_named_with_the_closest_held_type() -> None:
    stores, _ = await populated_stores()
    hint = await _hint(stores, passages=False, only=["Persn"])
    assert (
        hint
        == f"tenant {HOME} holds no type 'Persn', so nothing could match. Closest held: person."
    )


@pytest.mark.asyncio
async def test_a_held_value_beside_an_unheld_one_and_a_value_close_to_nothing() -> None:
    stores, _ = await populated_stores()
    mixed = await _hint(stores, passages=False, only=["PERSON", "nope", "zzzz"])
    assert mixed == (
        f"no entity of the given types matched, and tenant {HOME} holds no types 'nope', "
        "'zzzz'; it holds 2 types, e.g. organization, person."
    )


@pytest.mark.asyncio
async def test_every_value_held_keeps_the_filter_hint() -> None:
    stores, _ = await populated_stores()
    hint = await _hint(stores, passages=True, only=["notes.md"])
    assert hint == "no passage of the given sources matched; drop the source filter to search all."


@pytest.mark.asyncio
async def test_many_unheld_values_are_quoted_five_and_counted_past_that() -> None:
    stores, _ = await populated_stores()
    hint = await _hint(stores, passages=False, only=[f"kind{n}" for n in range(7)])
    quoted = ", ".join(f"'kind{n}'" for n in range(5))
    assert hint.startswith(f"tenant {HOME} holds no types {quoted} and 2 more, so nothing")
