"""`--threads` (or REDSTRING_THREADS) sets how many cores the local model embeds on."""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring.cli.arguments import build_parser
from redstring.cli.providers import embedding_provider
from redstring.client.embeddings import local_extra_installed
from redstring.llm.local_embedding import LocalEmbeddingProvider, available_cores
from tests.unit.cli.console import assert_one_error_line, redstring


@pytest.mark.skipif(not local_extra_installed(), reason="needs the `local` extra")
def test_threads_reach_the_local_model_from_the_flag_or_the_environment() -> None:
    def threads(argv: list[str], env: dict[str, str]) -> int:
        args = build_parser().parse_args(["index", "docs", "--embeddings", "local", *argv])
        provider = embedding_provider(args, env)
        assert isinstance(provider, LocalEmbeddingProvider)
        return provider.threads

    assert threads([], {}) == available_cores()
    assert threads(["--threads", "1"], {}) == 1
    assert threads([], {"REDSTRING_THREADS": "3"}) == 3
    assert threads(["--threads", "2"], {"REDSTRING_THREADS": "3"}) == 2


def test_a_thread_count_below_one_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Ada.\n")
    ran = redstring("index", "a.md", "--db", str(tmp_path / "x.db"), "--threads", "0",
                    cwd=tmp_path)  # fmt: skip
    line = assert_one_error_line(ran, status=2)
    assert "--threads" in line
    assert not (tmp_path / "x.db").exists()
