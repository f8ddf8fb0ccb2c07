"""Helpers shared by the tests of the in-process model providers (local and multilingual).

`tampered_copy` copies a model file with one bit flipped, for the digest checks;
`cosine` compares two vectors. The network refusal both use is the `no_network`
fixture (conftest.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np


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
