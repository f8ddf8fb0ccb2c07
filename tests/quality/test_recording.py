"""The semantic recording is the local model's own answers, and a partial re-record keeps the rest.

`test_fusion_floors.py` replays `semantic_answers.json.gz`; here a sample of
it is recomputed with the live model (the sample's chunks and queries only,
not the whole set), and `record(only=...)` is checked to refuse keeping
answers its corpus files no longer match.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest

from redstring import index_documents
from redstring.llm.local_embedding import MODEL_SHA256, LocalEmbeddingProvider
from redstring.projections.vectors import embedding_text
from redstring.stores import InMemoryChunkStore
from scripts.quality.harness import ENTITY_CORPORA, TENANT, entity_id_of, load_entity_corpus
from scripts.quality.passage_sets import PASSAGE_SETS, load_passage_set
from scripts.quality.recorded import digest, load_recording, record, sources

#: Recorded queries recomputed: the first three holdout lay questions of each passage set.
SAMPLE = 3


@pytest.mark.asyncio
@pytest.mark.parametrize("name", sorted(PASSAGE_SETS))
async def test_a_sample_of_each_passage_sets_recording_is_what_the_model_answers(
    name: str,
) -> None:
    recording = load_recording()
    assert recording["model_sha256"] == MODEL_SHA256
    passages = load_passage_set(PASSAGE_SETS[name])
    store = InMemoryChunkStore(dimension=1)
    await index_documents(passages.documents, chunks=store, tenant_id=TENANT)
    text_of = {(c.source_id, c.index): c.text for c in await store.list_chunks(TENANT)}
    provider = LocalEmbeddingProvider()
    sample = [q for q in passages.queries if q.split == "holdout" and q.targets][:SAMPLE]
    for query in sample:
        answer = recording["answers"][f"passages/{name}"][query.id][:SAMPLE]
        (asked,) = await provider.embed_query([query.text])
        chunks = await provider.embed([text_of[(source, index)] for source, index, _ in answer])
        for (_, _, score), vector in zip(answer, chunks, strict=True):
            cosine = sum(a * b for a, b in zip(asked, vector, strict=True))
            assert math.isclose((1.0 + cosine) / 2.0, score, abs_tol=1e-4), query.id


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["bio", "icd"])
async def test_a_sample_of_the_biomedical_recordings_is_what_the_model_answers(name: str) -> None:
    """The entities are embedded as the write path embeds them (name, type, description)."""
    answers = load_recording()["answers"][f"entities/{name}"]
    corpus = load_entity_corpus(ENTITY_CORPORA[name])
    by_id = {entity.id: entity for entity in corpus.entities}
    provider = LocalEmbeddingProvider()
    sample = [q for q in corpus.queries if q.split == "holdout" and q.targets][:SAMPLE]
    for query in sample:
        answer = answers[query.id][:SAMPLE]
        (asked,) = await provider.embed_query([query.text])
        texts = [embedding_text(by_id[entity_id_of(key)]) for key, _ in answer]
        for (_, score), vector in zip(answer, await provider.embed(texts), strict=True):
            cosine = sum(a * b for a, b in zip(asked, vector, strict=True))
            assert math.isclose((1.0 + cosine) / 2.0, score, abs_tol=1e-4), query.id


def _write(path: Path, payload: dict[str, object]) -> None:
    path.write_bytes(gzip.compress(json.dumps(payload).encode("utf-8")))


def test_recording_one_source_refuses_to_keep_answers_whose_corpus_changed(
    tmp_path: Path,
) -> None:
    digests = {name: digest(p) for name, p in sources().items()}
    stale = {**digests, "entities/world": "0" * 64}
    path = tmp_path / "answers.json.gz"
    _write(path, {"model_sha256": MODEL_SHA256, "sources": stale, "answers": {}})
    with pytest.raises(ValueError, match="entities/world changed"):
        record(path, only=["passages/python"])
    _write(path, {"model_sha256": "another model", "sources": digests, "answers": {}})
    with pytest.raises(ValueError, match="changed since"):
        record(path, only=["passages/python"])


def test_recording_an_unknown_source_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no recorded source passages/nothing"):
        record(tmp_path / "answers.json.gz", only=["passages/nothing"])
