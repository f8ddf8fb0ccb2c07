"""Fixtures for the adapter tests."""

from __future__ import annotations

import socket
from typing import Any

import pytest


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `socket.connect` and `socket.create_connection` raises AssertionError.

    The in-process model providers' test modules use it for every test
    (`pytestmark`), so a provider that tried to download anything fails.
    """

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
