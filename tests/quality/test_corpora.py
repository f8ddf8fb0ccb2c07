"""The committed corpora keep their format, and the world corpus regenerates byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quality.common import split_of
from quality.harness import ENTITY_CORPORA
from quality.world_corpus import build as build_world


def raw(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(ENTITY_CORPORA[name].read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize("name", sorted(ENTITY_CORPORA))
def test_every_query_is_graded_against_entities_of_its_corpus(name: str) -> None:
    corpus = raw(name)
    keys = [e["key"] for e in corpus["entities"]]
    assert len(keys) == len(set(keys))
    ids = [q["id"] for q in corpus["queries"]]
    assert len(ids) == len(set(ids))
    for q in corpus["queries"]:
        assert q["split"] == split_of(q["id"]), q["id"]
        assert set(q["targets"]) <= set(keys), q["id"]
        assert (q["shape"] == "no_match") == (not q["targets"]), q["id"]
        assert q["target"] is None or q["target"] in q["targets"], q["id"]


def test_every_world_entity_carries_a_description() -> None:
    assert all(e["description"].strip() for e in raw("world")["entities"])


def test_the_world_corpus_regenerates_byte_for_byte(tmp_path: Path) -> None:
    build_world(tmp_path)
    assert (tmp_path / "world_corpus.json").read_bytes() == ENTITY_CORPORA["world"].read_bytes()
