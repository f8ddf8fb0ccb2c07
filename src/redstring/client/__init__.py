"""The one object for the whole job: `Redstring` (blocking) and `AsyncRedstring` (ADR 0160).

This layer sits between the command line (and the MCP server) and
`redstring.composition`: it opens the stores a path or URL names, resolves
the tenant and the embedding provider once, and answers with printable,
convertible results.
"""

from __future__ import annotations

from redstring.client.client import DEFAULT_DB, AsyncRedstring
from redstring.client.sync import Redstring

__all__ = ["DEFAULT_DB", "AsyncRedstring", "Redstring"]
