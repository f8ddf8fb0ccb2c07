"""The root of the tree."""

from __future__ import annotations


class RedstringError(Exception):
    """The root of every error redstring raises deliberately."""
