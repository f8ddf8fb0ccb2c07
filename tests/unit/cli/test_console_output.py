"""What `passages` and `stats` print, and a folder given as `--db`, as a user runs them.

The console script runs in a subprocess; passages are embedded by the
OpenAI-protocol loopback server where a test needs vectors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.unit.adapters.openai_protocol_server import serve
from tests.unit.cli.console import assert_one_error_line, clean_env, redstring
from tests.unit.cli.sample_model import DIMENSION, script

NONE = ["--embeddings", "none"]

FILLER = " ".join(f"Paragraph filler sentence number {n} about nothing much." for n in range(12))


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "hopper.md").write_text(
        f"{FILLER}\n\nGrace Hopper found a moth in the relay of the Mark II computer.\n"
    )
    (corpus / "ada.md").write_text("Ada Lovelace wrote the first program.\n")
    return corpus


def test_passages_prints_the_confidence_min_confidence_compares(tmp_path: Path) -> None:
    _corpus(tmp_path)
    db = str(tmp_path / "x.db")
    assert redstring("index", "corpus", "--db", db, "--quiet", *NONE, cwd=tmp_path).status == 0
    shown = redstring("passages", "moth relay", "--db", db, *NONE, cwd=tmp_path)
    data = redstring("passages", "moth relay", "--db", db, "--json", *NONE, cwd=tmp_path)
    assert shown.status == 0, shown.err
    [hit] = json.loads(data.out)["matches"]
    [header] = [line for line in shown.out.splitlines() if line.startswith("1. ")]
    assert f"confidence {hit['confidence']:.4f}" in header, header
    above = redstring("passages", "moth relay", "--db", db, "--min-confidence",
                      f"{hit['confidence'] + 0.0001:.4f}", *NONE, cwd=tmp_path)  # fmt: skip
    assert above.out.startswith("0 passages for"), above.out


def test_the_snippet_is_the_window_where_the_query_matched_with_its_words_marked(
    tmp_path: Path,
) -> None:
    _corpus(tmp_path)
    db = str(tmp_path / "x.db")
    assert redstring("index", "corpus", "--db", db, "--quiet", *NONE, cwd=tmp_path).status == 0
    shown = redstring("passages", "moth relay", "--db", db, *NONE, cwd=tmp_path)
    assert shown.status == 0, shown.err
    snippet = " ".join(line.strip() for line in shown.out.splitlines()[2:])
    assert "**moth**" in snippet
    assert "**relay**" in snippet
    assert "number 0 " not in snippet  # the passage's start is not shown, its match is
    assert snippet.startswith("...")


def test_stats_counts_the_passage_vectors(tmp_path: Path) -> None:
    _corpus(tmp_path)
    db = str(tmp_path / "x.db")
    with serve(script) as server:
        env = clean_env(
            REDSTRING_EMBEDDINGS="openai",
            REDSTRING_EMBED_BASE_URL=server.base_url,
            REDSTRING_EMBED_MODEL="scripted-embed",
            REDSTRING_EMBED_DIMENSION=str(DIMENSION),
        )
        indexed = redstring("index", "corpus", "--db", db, "--quiet", cwd=tmp_path, env=env)
    assert indexed.status == 0, indexed.err
    counted = redstring("stats", "--db", db, cwd=tmp_path)
    assert counted.status == 0, counted.err
    assert re.search(r"^  vectors +2 \(0 of entities, 2 of chunks\)$", counted.out, re.M), (
        counted.out
    )
    [tenant] = json.loads(redstring("stats", "--db", db, "--json", cwd=tmp_path).out)["tenants"]
    # The JSON names what the line counts: 0 of entities, 2 of chunks, no bare `vectors`.
    assert (tenant["entity_vectors"], tenant["embedded_chunks"], tenant["chunks"]) == (0, 2, 2)
    assert "vectors" not in tenant


def test_a_folder_given_as_db_is_named_as_a_folder(tmp_path: Path) -> None:
    _corpus(tmp_path)
    folder = tmp_path / "dbdir"
    folder.mkdir()
    for argv in (
        ["stats", "--db", str(folder)],
        ["index", "corpus", "--db", str(folder), "--quiet", *NONE],
    ):
        line = assert_one_error_line(redstring(*argv, cwd=tmp_path))
        assert "is a folder" in line, line
        assert "disk I/O" not in line
    assert list(folder.iterdir()) == []


def test_the_snippet_marks_what_the_passages_language_matched(tmp_path: Path) -> None:
    (tmp_path / "stadt.md").write_text("In der Stadt stehen alte **Häuser** und neue Häuser.\n")
    db = str(tmp_path / "x.db")
    indexed = redstring("index", "stadt.md", "--db", db, "--quiet", "--language", "german",
                        *NONE, cwd=tmp_path)  # fmt: skip
    assert indexed.status == 0, indexed.err
    shown = redstring("passages", "Haus", "--db", db, *NONE, cwd=tmp_path)  # the db's language
    data = redstring("passages", "Haus", "--db", db, "--json", *NONE, cwd=tmp_path)
    assert shown.status == 0, shown.err
    snippet = " ".join(line.strip() for line in shown.out.splitlines()[2:])
    assert snippet == "In der Stadt stehen alte **Häuser** und neue **Häuser**.", shown.out
    assert json.loads(data.out)["language"] == "german"
