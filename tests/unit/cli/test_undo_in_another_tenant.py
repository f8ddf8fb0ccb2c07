"""`redstring undo` of a merge the default tenant's log does not hold says to pass --tenant.

The hint names the flag, not the tenant the merge was made in: an error of
one tenant says nothing of another's data.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from redstring import Redstring
from redstring.cli.main import main
from redstring.errors import MergeNotFoundError
from redstring.providers import FakeLlmProvider
from tests.unit.composition.test_build_graph import ANSWERS, DOCS


def _merge_in(db: Path, tenant: str) -> str:
    with Redstring(db, tenant=tenant, embeddings="none") as rs:
        report = rs.build(DOCS, model=FakeLlmProvider(by_substring=ANSWERS),
                          domain="people_and_organisations", max_failed_share=1.0)  # fmt: skip
    [merge] = report.merges
    return str(merge.event_id)


def test_undo_in_the_wrong_tenant_says_to_pass_the_tenant_flag(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    merge = _merge_in(db, "acme-secret")
    err = io.StringIO()
    argv = ["undo", merge, "--db", str(db), "--embeddings", "none"]
    assert main(argv, stdout=io.StringIO(), stderr=err) == 1
    [line] = err.getvalue().splitlines()
    assert line.startswith("redstring: error: ")
    assert "if it was made in another tenant, pass that tenant's name as --tenant" in line
    assert "acme-secret" not in line
    out = io.StringIO()
    assert main([*argv, "--tenant", "acme-secret"], stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue().startswith(f"undid merge {merge}")


def test_the_python_client_names_its_tenant_argument(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    merge = _merge_in(db, "acme")
    with (
        Redstring(db, embeddings="none") as rs,
        pytest.raises(MergeNotFoundError, match="pass that tenant's name as `tenant`"),
    ):
        rs.undo(merge)
