"""A search answer is its hits: it iterates, indexes and `len()`s as them, and mypy sees so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from redstring import RetrievalMode
from redstring.answers import EntityHit, EntitySearchAnswer, PassageHit, PassageSearchAnswer
from redstring.client.sync import Redstring
from redstring.domain.document import SourceDocument
from tests.hang_guard import HANG_GUARD_SECONDS

ROOT = Path(__file__).resolve().parents[3]

DOCS = [
    SourceDocument(id="a.md", text="Ada Lovelace wrote the first program for the engine."),
    SourceDocument(id="b.md", text="Grace Hopper wrote the first compiler for a program."),
    SourceDocument(id="c.md", text="Alan Turing described a universal machine."),
]


def test_a_passage_answer_iterates_indexes_and_counts_as_its_hits(tmp_path: Path) -> None:
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(DOCS)
        answer = rs.passages("first program", k=5)
    assert len(answer.matches) == 2
    assert [hit.source_id for hit in answer] == [hit.source_id for hit in answer.matches]
    assert all(isinstance(hit, PassageHit) for hit in answer)
    assert len(answer) == 2
    assert answer[0] == answer.matches[0]
    assert answer[-1] == answer.matches[-1]
    assert answer[:1] == answer.matches[:1]
    assert bool(answer)
    assert answer.mode is RetrievalMode.LEXICAL


def test_an_empty_answer_is_falsy_and_an_entity_answer_iterates_its_hits() -> None:
    empty = PassageSearchAnswer(tenant_id="t", query="q", mode=RetrievalMode.LEXICAL, matches=[])
    assert len(empty) == 0
    assert not empty
    assert list(empty) == []
    hit = EntityHit(
        rank=1, id="e", name="Ada", type="person", description="", aliases=[], score=1.0,
        semantic=None, lexical=1.0, confidence=0.9,
    )  # fmt: skip
    answer = EntitySearchAnswer(
        tenant_id="t", query="ada", mode=RetrievalMode.LEXICAL, matches=[hit]
    )
    assert list(answer) == [hit]
    assert answer[0] is hit
    assert len(answer) == 1


def test_every_hit_field_is_documented() -> None:
    for model in (PassageHit, EntityHit):
        undocumented = [name for name, field in model.model_fields.items() if not field.description]
        assert undocumented == [], model.__name__


SNIPPET = """\
from typing import assert_type
from redstring import Redstring, RetrievalMode
from redstring.answers import EntityHit, PassageHit

with Redstring("x.db") as rs:
    answer = rs.passages("q")
    for hit in answer:
        assert_type(hit, PassageHit)
    assert_type(answer[0], PassageHit)
    assert_type(answer.mode, RetrievalMode)
    for entity in rs.search("q"):
        assert_type(entity, EntityHit)
    rs.passages("q", mode="hybird")
"""


def test_mypy_sees_the_hit_type_of_an_iterated_answer_and_a_misspelt_mode(
    tmp_path: Path,
) -> None:
    (tmp_path / "snippet.py").write_text(SNIPPET)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "snippet.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    # The only error is the misspelt mode on the last line.
    assert len(errors) == 1, checked.stdout
    assert errors[0].startswith("snippet.py:13:"), checked.stdout
    assert "'hybird'" in errors[0]
