"""The `redstring` command and the MCP tool server: the library's surfaces outside Python.

The top layer beside `testing`: it composes stores, providers and
retrievers from flags and environment variables (the only place redstring
reads the environment) and prints or serves their answers. The library never
imports it.
"""

from __future__ import annotations
