"""Other processes' hold on a SQLite file, as tests need it: a held write lock, no write access."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def write_locked(path: Path) -> Iterator[sqlite3.Connection]:
    """Another connection holding `path`'s write lock, mid-transaction, for the block."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("UPDATE redstring_settings SET value = value")
    try:
        yield other
    finally:
        other.execute("ROLLBACK")
        other.close()


@contextmanager
def unwritable(folder: Path) -> Iterator[None]:
    """`folder` and its files made read-only for this process, root included."""
    paths = [*folder.iterdir(), folder]
    for path in paths:
        path.chmod(0o555 if path.is_dir() else 0o444)
    immutable = os.geteuid() == 0
    if immutable:  # root ignores permission bits; the immutable attribute binds it too
        done = subprocess.run(["chattr", "+i", *map(str, paths)], check=False)
        if done.returncode != 0:
            pytest.skip("running as root on a filesystem without chattr +i")
    try:
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", *map(str, paths)], check=True)
        for path in paths:
            path.chmod(0o755 if path.is_dir() else 0o644)
