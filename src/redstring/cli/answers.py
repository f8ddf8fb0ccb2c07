"""The answers: `redstring.client.answers`, named here for `cli.mcp_server`."""

from __future__ import annotations

from redstring.client.answers import EntityAnswer, EntitySearchAnswer, PassageSearchAnswer

__all__ = ["EntityAnswer", "EntitySearchAnswer", "PassageSearchAnswer"]
