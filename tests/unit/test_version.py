"""The package states one version: the installed distribution's, from pyproject.toml."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import redstring
from redstring.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_the_version_is_the_one_pyproject_declares() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert redstring.__version__ == declared


def test_the_license_file_is_the_one_pyproject_names() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    assert declared == {"text": "MIT"}
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_the_command_line_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"redstring {redstring.__version__}\n"
