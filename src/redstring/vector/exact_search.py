"""Moved to `redstring.domain.exact_search`; re-exported here for existing importers."""

from __future__ import annotations

from redstring.domain.exact_search import FloatMatrix, top_k, unit_vector, validate_search_args

__all__ = ["FloatMatrix", "top_k", "unit_vector", "validate_search_args"]
