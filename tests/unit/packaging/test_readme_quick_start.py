"""The README's quick start runs as printed from the built wheel, in an empty folder.

`pip install 'redstring[local]'` is the wheel with that extra in a fresh
environment; the Python block is the README's, byte for byte, run in a folder
holding nothing else.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.unit.packaging.conftest import ROOT, Venv

README = ROOT / "README.md"

pytestmark = pytest.mark.slow


def quick_start() -> str:
    """The first Python block under the README's `## Quick start`."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Quick start") :]
    [block] = re.findall(r"^```python\n(.*?)^```", section, flags=re.MULTILINE | re.DOTALL)[:1]
    return block


def test_the_readme_quick_start_runs_as_printed_from_the_wheel_in_an_empty_folder(
    fresh_venv: Callable[[str], Venv], tmp_path: Path
) -> None:
    venv = fresh_venv("local")
    work = tmp_path / "empty"
    work.mkdir()
    script = tmp_path / "quick_start.py"
    script.write_text(quick_start())
    done = subprocess.run(
        [str(venv.bin / "python"), str(script)],
        cwd=work,
        env=venv.env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("5 passages for 'the first computer program' (hybrid)\n")
    assert done.stdout.splitlines()[1].endswith("sample_docs/ada_lovelace.md #0")
    assert sorted(path.name for path in work.iterdir()) == ["demo.db"]
