"""The command line's page lists exactly the fields `--json` prints, per command.

`--json` prints the client's answers (`model_dump_json`), so each table of
"JSON output" in `docs/how-to/use-the-command-line.md` is held to the fields
of the answer it describes: a field added, renamed or dropped fails here
until the page says so.
"""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel

from redstring.answers import (
    EntityHit,
    EntitySearchAnswer,
    PassageHit,
    PassageSearchAnswer,
    TenantStats,
)
from tests.unit.cli.console import ROOT

PAGE = ROOT / "docs" / "how-to" / "use-the-command-line.md"


def _tables() -> list[list[str]]:
    """The first column of each table under "JSON output", in order."""
    section = PAGE.read_text().split("## JSON output", 1)[1].split("\n## ", 1)[0]
    tables: list[list[str]] = []
    for block in re.split(r"\n\s*\n", section):
        fields = re.findall(r"^\| `([^`]+)` \|", block, re.MULTILINE)
        if fields:
            tables.append(fields)
    return tables


@pytest.mark.parametrize(
    ("position", "models"),
    [
        (0, [EntitySearchAnswer, PassageSearchAnswer]),
        (1, [EntityHit]),
        (2, [PassageHit]),
        (3, [TenantStats]),
    ],
)
def test_each_table_lists_the_fields_json_prints(
    position: int, models: list[type[BaseModel]]
) -> None:
    printed = {name for model in models for name in model.model_fields}
    assert set(_tables()[position]) == printed


def test_the_page_no_longer_says_the_fields_are_the_mcp_tools() -> None:
    assert "are those of the MCP tools' output schemas" not in PAGE.read_text()
