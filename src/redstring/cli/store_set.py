"""The stores a `--db` value opens: `redstring.client.store_set`, named for `cli.mcp_server`."""

from __future__ import annotations

from redstring.client.store_set import StoreOpener, StoreSet

__all__ = ["StoreOpener", "StoreSet"]
