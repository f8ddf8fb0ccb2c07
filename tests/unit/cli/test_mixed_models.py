"""`redstring index` warns when it leaves a tenant's passages embedded by several models.

A query vector compares meaningfully with one model's vectors only; a run that
embeds some documents with another model than the rest says so, naming each
model's passages, and a run that embeds them all with one model is quiet.
"""

from __future__ import annotations

from pathlib import Path

from tests.unit.adapters.openai_protocol_server import serve
from tests.unit.cli.console import clean_env, redstring
from tests.unit.cli.sample_model import DIMENSION, script

WARNING = "redstring: warning: this tenant's passages are now embedded by 2 models"


def test_indexing_part_of_a_tenant_with_another_model_warns_and_all_of_it_does_not(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "ada.md").write_text("Ada Lovelace wrote the first program.\n")
    (corpus / "hopper.md").write_text("Grace Hopper found a moth in a relay.\n")
    db = str(tmp_path / "x.db")
    with serve(script) as server:

        def index(path: str, model: str, *flags: str) -> tuple[int, str, str]:
            env = clean_env(
                REDSTRING_EMBEDDINGS="openai",
                REDSTRING_EMBED_BASE_URL=server.base_url,
                REDSTRING_EMBED_MODEL=model,
                REDSTRING_EMBED_DIMENSION=str(DIMENSION),
            )
            ran = redstring("index", path, "--db", db, "--quiet", *flags, cwd=tmp_path, env=env)
            return ran.status, ran.out, ran.err

        status, _, err = index("corpus", "model-a")
        assert (status, WARNING in err) == (0, False), err
        status, _, err = index("corpus/ada.md", "model-b", "--root", "corpus/..")
        assert status == 0, err
        assert f"{WARNING} (model-a: 1, model-b: 1)" in err, err
        status, out, err = index("corpus/ada.md", "model-b", "--root", "corpus/..")
        assert (status, "warning" not in err) == (0, True), err  # nothing embedded, nothing said
        assert "0 chunks embedded" in out, out
        status, _, err = index("corpus", "model-b")
        assert (status, WARNING in err) == (0, False), err
