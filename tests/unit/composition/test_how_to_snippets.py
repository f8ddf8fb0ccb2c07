"""The chunk how-tos' code runs as written, importing only the public surface (and asyncio)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.unit.test_public_api import SURFACE

DOCS = Path(__file__).resolve().parents[3] / "docs" / "how-to"
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def snippets(name: str) -> list[str]:
    blocks = FENCE.findall((DOCS / name).read_text(encoding="utf-8"))
    assert blocks, f"{name} has no python block"
    return blocks


@pytest.mark.parametrize("name", ["index-documents.md", "retrieve-chunks.md"])
def test_the_how_to_runs_and_imports_only_the_public_surface(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    namespace: dict[str, object] = {"__name__": f"how_to_{name}"}
    for block in snippets(name):
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.Import):
                assert [a.name for a in node.names] == ["asyncio"]
            elif isinstance(node, ast.ImportFrom):
                assert node.module in SURFACE
        exec(compile(block, name, "exec"), namespace)
    assert capsys.readouterr().out.strip()
