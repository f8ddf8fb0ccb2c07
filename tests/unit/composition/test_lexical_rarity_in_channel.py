"""The lexical channel weighs query words by the tenant's counts, kept on every write (ADR 0350)."""

from __future__ import annotations

import itertools

import pytest

from redstring import RetrievalMode, Retriever
from redstring.stores import InMemoryGraphStore
from tests.factories import DEFAULT_TENANT, make_entity

#: Structures nobody asks about: each names one "Abnormality of the ..." entity.
STRUCTURES = ["".join(p).capitalize() for p in itertools.product("bdkl", "aeio", "mnrt", "ua")]


async def ranked(graph: InMemoryGraphStore, query: str, k: int = 3) -> list[tuple[str, float]]:
    result = await Retriever.lexical_only(graph=graph).retrieve(
        query, DEFAULT_TENANT, k=k, mode=RetrievalMode.LEXICAL
    )
    return [(m.entity.name, m.lexical or 0.0) for m in result.matches]


@pytest.mark.asyncio
async def test_a_rare_word_outweighs_shared_boilerplate() -> None:
    """Hundreds of names begin "Abnormality of the"; only two hold "pancreas"."""
    graph = InMemoryGraphStore()
    await graph.upsert([make_entity(f"Abnormality of the {s}") for s in STRUCTURES])
    await graph.upsert(
        [
            make_entity("Abnormality of the spleen"),
            make_entity("Cyst of the pancreas"),
            make_entity("Pancreas divisum"),
        ]
    )
    [(first, best), (second, _), *rest] = await ranked(graph, "Abnormality of the pancreas", 10)
    assert (first, second) == ("Cyst of the pancreas", "Pancreas divisum")
    assert rest
    assert all(name.startswith("Abnormality of the") for name, _ in rest)
    assert max(score for _, score in rest) < best - 0.15  # boilerplate is weak evidence


@pytest.mark.asyncio
async def test_a_words_weight_follows_writes_without_a_rebuild() -> None:
    """Once "pancreas" is common and "abnormality" rare, the other name wins."""
    graph = InMemoryGraphStore()
    await graph.upsert(
        [make_entity("Abnormality of the spleen"), make_entity("Cyst of the pancreas")]
    )
    common = [make_entity(f"Pancreas {s}") for s in STRUCTURES]
    await graph.upsert(common)
    assert (await ranked(graph, "Abnormality of the pancreatic"))[0][0] == (
        "Abnormality of the spleen"
    )
    await graph.delete_entities([e.id for e in common], DEFAULT_TENANT)
    await graph.upsert([make_entity(f"Abnormality of the {s}") for s in STRUCTURES])
    assert (await ranked(graph, "Abnormality of the pancreatic"))[0][0] == "Cyst of the pancreas"
