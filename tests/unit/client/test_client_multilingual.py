"""The client and the command line reach the multilingual model by name (ADR 0275)."""

from __future__ import annotations

import argparse
from pathlib import Path

from redstring import Redstring, RetrievalMode, SourceDocument
from redstring.cli.providers import embedding_provider
from redstring.providers import MultilingualEmbeddingProvider

DOCUMENTS = [
    SourceDocument(id="rivers.md", text="The Rhine flows from the Alps to the North Sea."),
    SourceDocument(id="bread.md", text="Sourdough bread rises slowly with wild yeast."),
    SourceDocument(id="stars.md", text="A telescope gathers the faint light of distant stars."),
]


def test_the_client_embeds_with_the_multilingual_model_when_named(tmp_path: Path) -> None:
    with Redstring(tmp_path / "m.db", embeddings="multilingual") as rs:
        assert isinstance(rs.embeddings, MultilingualEmbeddingProvider)
        rs.index(DOCUMENTS)
        # A German question, English passages, no shared word: only meaning finds it.
        answer = rs.passages("Wie geht Brot mit Sauerteig auf?", k=1, mode=RetrievalMode.SEMANTIC)
    assert [hit.source_id for hit in answer.matches] == ["bread.md"]


def test_the_command_line_chooses_it_by_flag_or_environment() -> None:
    by_flag = embedding_provider(argparse.Namespace(embeddings="multilingual"), {})
    by_env = embedding_provider(argparse.Namespace(), {"REDSTRING_EMBEDDINGS": "multilingual"})
    assert isinstance(by_flag, MultilingualEmbeddingProvider)
    assert isinstance(by_env, MultilingualEmbeddingProvider)
