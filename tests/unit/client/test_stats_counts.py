"""`stats` counts through the stores' summaries and never loads a row."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, NoReturn

from redstring.client.queries import stats
from tests.unit.cli.world import HOME, OTHER, populated_stores


class _Refuses:
    """A store that answers every call but the ones loading whole tenants."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name in ("list_entities", "list_relationships", "list_chunks"):

            def refuse(*args: object) -> NoReturn:
                raise AssertionError(f"stats loaded rows with {name}")

            return refuse
        return getattr(self._inner, name)


def test_stats_counts_every_tenant_without_loading_rows() -> None:
    async def scenario() -> tuple[Any, Any]:
        stores, _ = await populated_stores()
        loaded = await stats(stores, HOME)
        refusing = dataclasses.replace(
            stores, graph=_Refuses(stores.graph), chunks=_Refuses(stores.chunks)
        )
        return loaded, await stats(refusing, HOME)

    before, counted = asyncio.run(scenario())
    assert counted == before
    rows = {row["tenant_id"]: row for row in counted.to_dicts()}
    assert set(rows) == {str(HOME), str(OTHER)}
    assert rows[str(HOME)]["entities"] > 0
    assert rows[str(HOME)]["chunks"] > 0
