"""The how-to pages' Python snippets run as written, importing only the public surface."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.unit.test_public_api import SURFACE

HOW_TO = Path(__file__).resolve().parents[3] / "docs" / "how-to"
FENCE = re.compile(r"```python\n(.*?)```", re.DOTALL)


def snippets(page: str) -> list[str]:
    return FENCE.findall((HOW_TO / page).read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", ["build-a-graph.md", "rebuild-by-replay.md"])
def test_the_snippet_runs(page: str, capsys: pytest.CaptureFixture[str]) -> None:
    [code] = snippets(page)
    imported = set(re.findall(r"^(?:from|import) ([\w.]+)", code, re.MULTILINE))
    assert imported <= SURFACE.keys() | {"asyncio"}
    exec(compile(code, page, "exec"), {"__name__": "__snippet__"})
    assert capsys.readouterr().out


def test_the_build_snippet_prints_what_its_comments_say(capsys: pytest.CaptureFixture[str]) -> None:
    [code] = snippets("build-a-graph.md")
    exec(compile(code, "build-a-graph.md", "exec"), {"__name__": "__snippet__"})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "people_and_organisations 0.8"
    assert lines[1] == "3 2 []"
