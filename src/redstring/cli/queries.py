"""The shared reads: `redstring.client.queries`, named here for `cli.mcp_server`."""

from __future__ import annotations

from redstring.client.queries import (
    get_entity,
    parse_entity_id,
    resolve_mode,
    search_entities,
    search_passages,
    stats,
)

__all__ = [
    "get_entity",
    "parse_entity_id",
    "resolve_mode",
    "search_entities",
    "search_passages",
    "stats",
]
