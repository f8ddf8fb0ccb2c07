"""Helpers shared by the tests of the in-process model providers (local and multilingual).

`tampered_copy` copies a model file with one bit flipped, for the digest checks;
`cosine` compares two vectors. Both modules mark every test with the `no_network`
fixture (conftest.py), and each checks its mark holds with `assert_network_refused`.
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import numpy as np
import pytest


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


def assert_network_refused() -> None:
    """Both ways out (`socket.create_connection`, `socket.connect`) raise the refusal."""
    with pytest.raises(AssertionError, match="network access attempted"):
        socket.create_connection(("127.0.0.1", 9))
    with socket.socket() as sock, pytest.raises(AssertionError, match="network access attempted"):
        sock.connect(("127.0.0.1", 9))
