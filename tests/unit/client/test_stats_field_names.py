"""`TenantStats` names what it counts: `entity_vectors` beside `embedded_chunks`.

The entities' vectors were once written as `vectors`, which `stats` prints as
the tenant's vectors of both kinds; that name is still taken and read.
"""

from __future__ import annotations

import io

from redstring.answers import StatsAnswer, TenantStats
from redstring.client.answers import print_stats

_FORMER = {
    "tenant_id": "t",
    "entities": 1,
    "entities_by_type": {"person": 1},
    "relationships": 0,
    "vectors": 3,
    "chunks": 5,
    "embedded_chunks": 5,
}


def test_the_entities_vectors_are_written_as_entity_vectors() -> None:
    written = TenantStats.model_validate(_FORMER).model_dump()
    assert (written["entity_vectors"], written["embedded_chunks"]) == (3, 5)
    assert "vectors" not in written


def test_the_former_name_is_still_taken_and_read() -> None:
    stats = TenantStats.model_validate(_FORMER)
    assert (stats.entity_vectors, stats.vectors) == (3, 3)


def test_the_printed_line_names_the_fields_counts() -> None:
    out = io.StringIO()
    print_stats(StatsAnswer(backend="SQLite", tenants=[TenantStats.model_validate(_FORMER)]), out)
    assert "  vectors        8 (3 of entities, 5 of chunks)\n" in out.getvalue()
