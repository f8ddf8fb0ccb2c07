"""The package states one version and its licence, and git ignores what running it writes."""

from __future__ import annotations

import subprocess
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


@pytest.mark.parametrize(
    "path",
    ["demo.db", "demo.db-wal", "demo.db-shm", "notes.db", "onnxruntime_profile__1.json", "dist/x"],
)
def test_what_the_walkthroughs_and_tools_write_is_ignored_by_git(path: str) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--quiet", path], cwd=ROOT, check=False
    )
    assert done.returncode == 0, f"{path} is not ignored"
