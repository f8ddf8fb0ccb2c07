"""Helpers shared by the tests of the in-process model providers (local and multilingual).

`refuse_network` makes every outbound connection an `AssertionError`, so a provider
that tried to download anything fails its test; `tampered_copy` copies a model file
with one bit flipped, for the digest checks; `cosine` compares two vectors.
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path
from typing import Any

import numpy as np
import pytest


def refuse_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn every `socket.connect` and `socket.create_connection` into an AssertionError."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def tampered_copy(source: Path, directory: Path) -> Path:
    """A copy of `source` in `directory`, its middle byte's lowest bit flipped."""
    copy = directory / source.name
    shutil.copyfile(source, copy)
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0x01
    copy.write_bytes(bytes(data))
    return copy


def cosine(a: list[float], b: list[float]) -> float:
    """The cosine of the angle between `a` and `b`."""
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
