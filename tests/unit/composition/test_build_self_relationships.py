"""A relationship whose two ends are one entity is dropped at extraction and counted.

Merging drops a link between a survivor and an entity folded into it; an
answer stating one outright (`Ada Lovelace -knows-> Ada Lovelace`) is dropped
the same way, before it is logged, and counted with the relationships whose
end was not extracted.
"""

from __future__ import annotations

from typing import Any

import pytest

from redstring import SourceDocument, build_graph
from redstring.providers import FakeLlmProvider
from redstring.stores import InMemoryEventLog, InMemoryGraphStore
from tests.factories import DEFAULT_TENANT


def _answer() -> dict[str, Any]:
    person = "person"
    return {
        "entities": [
            {"name": "Ada Lovelace", "type": person, "description": ""},
            {"name": "Charles Babbage", "type": person, "description": ""},
        ],
        "relationships": [
            {"source": "Ada Lovelace", "target": "Ada Lovelace", "type": "knows"},
            {"source": "Ada Lovelace", "target": "Charles Babbage", "type": "knows"},
        ],
    }


@pytest.mark.asyncio
async def test_a_self_relationship_is_never_stored_and_is_counted_as_dropped() -> None:
    graph = InMemoryGraphStore()
    log = InMemoryEventLog()
    report = await build_graph(
        [SourceDocument(id="d", text="Ada Lovelace knew Charles Babbage.")],
        provider=FakeLlmProvider([_answer()]),
        graph=graph,
        tenant_id=DEFAULT_TENANT,
        log=log,
        domain="general",
    )
    assert report.relationships_dropped == 1
    assert report.relationships_written == 1
    stored = await graph.list_relationships(DEFAULT_TENANT)
    assert [(r.source_id == r.target_id) for r in stored] == [False]
