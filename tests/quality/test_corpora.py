"""The committed corpora keep their format and regenerate byte for byte."""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

import pytest

from scripts.quality import python_topics
from scripts.quality.bio_corpus import ABBREVIATION, BIO_SHAPES, ICD_SHAPES, content_words
from scripts.quality.common import fold, split_of
from scripts.quality.element_passages import build as build_elements
from scripts.quality.harness import ENTITY_CORPORA, load_entity_corpus
from scripts.quality.passage_sets import PASSAGE_SETS
from scripts.quality.python_passages import build as build_python
from scripts.quality.python_passages import shipped
from scripts.quality.python_topics import extract
from scripts.quality.world_corpus import build as build_world


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


@pytest.mark.parametrize(("name", "shapes"), [("bio", BIO_SHAPES), ("icd", ICD_SHAPES)])
def test_the_biomedical_families_ask_only_for_wordings_the_graph_does_not_hold(
    name: str, shapes: tuple[str, ...]
) -> None:
    corpus = raw(name)
    names = {fold(e["name"]) for e in corpus["entities"]}
    name_of = {e["key"]: e["name"] for e in corpus["entities"]}
    assert all(not e["aliases"] and e["description"] for e in corpus["entities"])
    counts = {shape: 0 for shape in shapes}
    for q in corpus["queries"]:
        counts[q["shape"]] += 1
        assert fold(q["query"]) not in names, q["id"]
        if q["shape"] != "definition":  # a definition is a sentence, no wording of a name
            assert not ABBREVIATION.search(q["query"]), q["id"]
            assert content_words(q["query"]) != content_words(name_of[q["target"]]), q["id"]
    assert min(counts.values()) >= 150, counts


def test_every_world_entity_carries_a_description_into_the_harness() -> None:
    assert all(e["description"].strip() for e in raw("world")["entities"])
    loaded = load_entity_corpus(ENTITY_CORPORA["world"])
    assert all(entity.description.strip() for entity in loaded.entities)


def test_the_world_corpus_regenerates_byte_for_byte(tmp_path: Path) -> None:
    build_world(tmp_path)
    assert (tmp_path / "world_corpus.json").read_bytes() == ENTITY_CORPORA["world"].read_bytes()


@pytest.mark.parametrize("name", sorted(PASSAGE_SETS))
def test_every_passage_query_is_graded_against_documents_of_its_set(name: str) -> None:
    passages = json.loads(PASSAGE_SETS[name].read_text(encoding="utf-8"))
    ids = {d["id"] for d in passages["documents"]}
    assert len(ids) == len(passages["documents"])
    for q in passages["queries"]:
        assert q["split"] == split_of(q["id"]), q["id"]
        assert q["targets"] == sorted(q["grades"]), q["id"]
        assert set(q["grades"]) <= ids, q["id"]
        if q["shape"] == "no_match":
            assert q["grades"] == {}, q["id"]
            assert q["target"] is None, q["id"]
        else:
            assert max(q["grades"].values()) == 2 == q["grades"][q["target"]], q["id"]


@pytest.mark.parametrize(
    "path", [*(ENTITY_CORPORA[n] for n in sorted(ENTITY_CORPORA)), *PASSAGE_SETS.values()]
)
def test_a_query_text_asked_twice_is_graded_alike(path: Path) -> None:
    """Two queries of one shape and text graded for different targets are one question
    with several answers: a ranking could be right on only one of them, by chance."""
    grades: dict[tuple[str, str], Any] = {}
    for q in json.loads(path.read_text(encoding="utf-8"))["queries"]:
        if q["targets"]:
            graded = q.get("grades", sorted(q["targets"]))
            key = (q["shape"], " ".join(q["query"].casefold().split()))
            assert grades.setdefault(key, graded) == graded, q["id"]


def test_the_element_passages_regenerate_byte_for_byte(tmp_path: Path) -> None:
    build_elements(tmp_path)
    expected = PASSAGE_SETS["elements"].read_bytes()
    assert (tmp_path / "element_passages.json").read_bytes() == expected


def test_the_python_passages_regenerate_byte_for_byte(tmp_path: Path) -> None:
    build_python(tmp_path)
    assert (tmp_path / "python_passages.json").read_bytes() == PASSAGE_SETS["python"].read_bytes()


def test_the_shipped_python_passages_are_this_pythons_pydoc_topics_if_it_is_theirs() -> None:
    version, documents = shipped()
    if platform.python_version() != version:
        pytest.skip(f"the passages come from Python {version}, this is {platform.python_version()}")
    assert extract() == documents


TABLE = (
    "Tables\n======\n\n+-----+-------+\n| a   | b     |\n|=====|=======|\n"
    "| one | three |\n+-----+-------+\n"
)
TOPICS = {
    "b-topic": (
        "Strings\n*******\n\nText is a sequence.\n\n"
        "str.upper()\n\n   Return a copy of the string in capitals, a long enough body here.\n\n"
        "str.lower()\n\n   Too short.\n\n" + TABLE
    ),
    "a-topic": TABLE,
}


def test_python_topics_split_into_sections_and_entries_once_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(python_topics, "MIN_CHARS", 12)
    documents = extract(TOPICS)
    assert [(d["id"], d["topic"]) for d in documents] == [
        ("python:tables", "a-topic"),  # the same section again under b-topic is kept once
        ("python:strings", "b-topic"),
        ("python:str.upper", "b-topic"),
    ]
    assert documents[0]["text"] == "Tables. a b one three"
    assert documents[1]["text"] == "Strings. Text is a sequence."
    assert documents[2]["text"] == (
        "str.upper(). Return a copy of the string in capitals, a long enough body here."
    )
