"""The package states one version: the installed distribution's, from pyproject.toml."""

from __future__ import annotations

import subprocess
import tarfile
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
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_the_command_line_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"redstring {redstring.__version__}\n"


def test_tenant_ids_from_names_are_public() -> None:
    assert "tenant_id_for" in redstring.__all__
    assert redstring.tenant_id_for("acme") == redstring.tenant_id_for("acme")


def test_the_source_archive_holds_what_a_user_needs_and_nothing_else(tmp_path: Path) -> None:
    subprocess.run(
        ["uv", "build", "--sdist", "--out-dir", str(tmp_path), "--quiet", str(ROOT)],
        check=True,
        timeout=120,
    )
    [archive] = tmp_path.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        top = {Path(name).parts[1] for name in tar.getnames() if len(Path(name).parts) > 1}
        names = tar.getnames()
    assert {"src", "examples", "LICENSE", "README.md", "pyproject.toml"} <= top
    assert not top & {"tests", "scripts", "docs", "CLAUDE.md", "BACKLOG.md", "uv.lock"}
    assert not [name for name in names if name.endswith(".db")]
