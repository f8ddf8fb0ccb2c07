"""`redstring rekey`, `undo` and `rebuild` as a user runs them, on a file `build` wrote (B83).

The graph is built through the client with a scripted model that names one
organisation two ways (so the build merges them), lexically (no embeddings);
then each command runs as a subprocess of the console script.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from uuid import uuid4

from redstring import Redstring
from redstring.providers import FakeLlmProvider
from tests.unit.cli.console import assert_one_error_line, redstring
from tests.unit.composition.test_build_graph import ANSWERS, DOCS

NONE = ["--embeddings", "none"]


def _built(tmp_path: Path) -> tuple[str, dict[str, Any]]:
    """A SQLite file whose build merged "Acme Corp" into "Acme Corporation"."""
    db = str(tmp_path / "g.db")
    with Redstring(db, embeddings="none") as rs:
        report = rs.build(DOCS, model=FakeLlmProvider(by_substring=ANSWERS),
                          domain="people_and_organisations", max_failed_share=1.0)  # fmt: skip
    return db, report.model_dump(mode="json")


def _stats(db: str) -> dict[str, object]:
    [tenant] = json.loads(redstring("stats", "--db", db, "--json").out)["tenants"]
    return dict(tenant)


def test_undo_reverses_a_merge_once_and_rebuild_replays_the_log(tmp_path: Path) -> None:
    db, report = _built(tmp_path)
    [merge] = report["merges"]
    before = _stats(db)
    undone = redstring("undo", merge["event_id"], "--db", db, *NONE)
    assert undone.status == 0, undone.err
    assert undone.out.startswith(f"undid merge {merge['event_id']}: {merge['survivor_name']}")
    after = _stats(db)
    assert after["entities"] == before["entities"] + len(merge["merged_ids"])
    again = assert_one_error_line(redstring("undo", merge["event_id"], "--db", db, *NONE))
    assert again.startswith("redstring: error: ")
    assert "has already been undone" in again
    rebuilt = redstring("rebuild", "--db", db, "--json")
    assert rebuilt.status == 0, rebuilt.err
    replayed = json.loads(rebuilt.out)
    assert (replayed["entities"], replayed["relationships"]) == (
        after["entities"],
        after["relationships"],
    )
    assert _stats(db)["entities_by_type"] == after["entities_by_type"]
    rekeyed = redstring("rekey", "--db", db)
    assert rekeyed.out.startswith(f"tenant {after['tenant_id']}: already current (key version ")
    forced = redstring("rekey", "--db", db, "--force")
    assert f"re-keyed {after['entities']} entities" in forced.out


def test_bad_upkeep_input_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    not_an_id = assert_one_error_line(redstring("undo", "merge-1", "--db", str(missing), *NONE))
    assert "merge_event_id='merge-1' is not allowed" in not_an_id
    assert not missing.exists()  # refused before the database was opened
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("Ada.")
    db = str(tmp_path / "x.db")
    redstring("index", "docs", "--db", db, "--quiet", *NONE, cwd=tmp_path)
    unknown = assert_one_error_line(redstring("undo", str(uuid4()), "--db", db, *NONE))
    assert unknown.startswith("redstring: error: ")
    assert "merge" in unknown
    rekeyed = redstring("rekey", "--db", db).out  # passages only: no entity to re-file
    assert rekeyed.startswith("tenant ")
    assert rekeyed.endswith(": already current (it holds no entities to re-key)\n")
    assert "None" not in rekeyed  # never "key version None"
