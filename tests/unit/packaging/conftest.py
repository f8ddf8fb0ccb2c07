"""The built distributions, and fresh virtual environments with the wheel installed.

`uv build` makes the sdist and, from it, the wheel, as a release would. A fresh
environment installs the wheel (with the extras asked for) at the versions
`uv.lock` pins: from the uv cache when it holds them (no network), else from
the registry.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def uv() -> str:
    """The uv running this session (`uv run` sets `UV`), else the one on PATH."""
    return os.environ.get("UV", "uv")


@dataclass(frozen=True)
class Built:
    sdist: Path
    wheel: Path


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [uv(), "build", "--quiet", "--python", sys.executable, "--out-dir", str(out), str(ROOT)],
        check=True,
        timeout=300,
    )
    [sdist] = out.glob("*.tar.gz")
    [wheel] = out.glob("*.whl")
    return Built(sdist=sdist, wheel=wheel)


@dataclass(frozen=True)
class Venv:
    """A fresh virtual environment and a clean environment to run its commands in."""

    path: Path

    @property
    def bin(self) -> Path:
        return self.path / "bin"

    def env(self) -> dict[str, str]:
        kept = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("REDSTRING_", "VIRTUAL_ENV", "PYTHON", "UV_", "COV"))
        }
        return {**kept, "PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.fixture(scope="session")
def pins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lock's versions of every runtime dependency, as a constraints file."""
    path = tmp_path_factory.mktemp("pins") / "constraints.txt"
    done = subprocess.run(
        [
            uv(),
            "export",
            "--frozen",
            "--no-dev",
            "--all-extras",
            "--no-emit-project",
            "--no-hashes",
            "--quiet",
            "--project",
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    path.write_text(done.stdout)
    return path


@pytest.fixture
def fresh_venv(built: Built, pins: Path, tmp_path: Path) -> Callable[[str], Venv]:
    """`fresh_venv("local,mcp")`: a new environment holding the wheel with those extras."""

    def make(extras: str) -> Venv:
        venv = Venv(tmp_path / f"venv-{extras or 'base'}")
        subprocess.run(
            [uv(), "venv", "--quiet", "--python", sys.executable, str(venv.path)],
            check=True,
            timeout=120,
        )
        requirement = f"{built.wheel}[{extras}]" if extras else str(built.wheel)
        install = [uv(), "pip", "install", "--quiet", "--python", str(venv.bin / "python")]
        install += ["--constraint", str(pins), requirement]
        offline = subprocess.run(
            [*install, "--offline"], capture_output=True, timeout=300, check=False
        )
        if offline.returncode != 0:  # a cache without some pinned file: fetch it
            subprocess.run(install, check=True, timeout=600)
        return venv

    return make
