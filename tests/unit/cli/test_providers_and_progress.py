"""Provider settings from flags and environment, and the progress line."""

from __future__ import annotations

import argparse
import io

import pytest
import tqdm.std

from redstring.cli.progress import ProgressBar
from redstring.cli.providers import (
    embedding_kind,
    embedding_provider,
    llm_provider,
    local_extra_installed,
)
from redstring.domain.errors import InvalidSettingError
from redstring.errors import MissingSettingError
from redstring.llm.local_embedding import LocalEmbeddingProvider
from redstring.llm.openai_compatible import (
    OpenAICompatibleEmbeddingProvider,
    OpenAICompatibleLlmProvider,
)

OPENAI = {
    "REDSTRING_EMBEDDINGS": "openai",
    "REDSTRING_EMBED_BASE_URL": "http://127.0.0.1:9/v1",
    "REDSTRING_EMBED_MODEL": "e",
    "REDSTRING_EMBED_DIMENSION": "24",
}


def flags(**given: str | None) -> argparse.Namespace:
    return argparse.Namespace(**given)


def test_a_flag_wins_over_the_environment_which_wins_over_the_default() -> None:
    assert embedding_kind(flags(embeddings="none"), {"REDSTRING_EMBEDDINGS": "openai"}) == "none"
    assert embedding_kind(flags(embeddings=None), {"REDSTRING_EMBEDDINGS": "openai"}) == "openai"
    default = "local" if local_extra_installed() else "none"
    assert embedding_kind(flags(embeddings=None), {}) == default


def test_the_local_extra_is_the_default_where_it_is_installed() -> None:
    # The dev environment installs redstring[local]; CI installs every extra.
    assert local_extra_installed()
    assert isinstance(embedding_provider(flags(embeddings=None), {}), LocalEmbeddingProvider)


def test_openai_embeddings_are_configured_from_the_environment() -> None:
    provider = embedding_provider(flags(), OPENAI)
    assert isinstance(provider, OpenAICompatibleEmbeddingProvider)
    assert provider.dimension == 24
    override = embedding_provider(flags(embed_dimension="8"), OPENAI)
    assert override is not None
    assert override.dimension == 8


@pytest.mark.parametrize(
    ("missing", "flag"),
    [
        ("REDSTRING_EMBED_BASE_URL", "--embed-base-url"),
        ("REDSTRING_EMBED_MODEL", "--embed-model"),
        ("REDSTRING_EMBED_DIMENSION", "--embed-dimension"),
    ],
)
def test_openai_embeddings_name_the_missing_setting(missing: str, flag: str) -> None:
    env = {name: value for name, value in OPENAI.items() if name != missing}
    with pytest.raises(MissingSettingError, match=f"needs {flag}: pass it, or set .* {missing}"):
        embedding_provider(flags(), env)


@pytest.mark.parametrize("dimension", ["0", "-3", "many", "1.5"])
def test_a_dimension_must_be_a_positive_whole_number(dimension: str) -> None:
    with pytest.raises(InvalidSettingError, match="--embed-dimension"):
        embedding_provider(flags(), {**OPENAI, "REDSTRING_EMBED_DIMENSION": dimension})


def test_an_unknown_provider_in_the_environment_is_refused() -> None:
    with pytest.raises(InvalidSettingError, match="REDSTRING_EMBEDDINGS='cloud'"):
        embedding_kind(flags(embeddings=None), {"REDSTRING_EMBEDDINGS": "cloud"})


def test_the_language_model_needs_a_url_and_a_model() -> None:
    env = {"REDSTRING_LLM_BASE_URL": "http://127.0.0.1:9/v1", "REDSTRING_LLM_MODEL": "m"}
    assert isinstance(llm_provider(flags(), env), OpenAICompatibleLlmProvider)
    with pytest.raises(MissingSettingError, match="--llm-model"):
        llm_provider(flags(llm_model="  "), {"REDSTRING_LLM_BASE_URL": "http://x/v1"})


#: Each model setting: its flag's attribute, its variable, a valid value.
MODEL_SETTINGS = {
    "llm_timeout": ("REDSTRING_LLM_TIMEOUT", "7.5"),
    "llm_concurrency": ("REDSTRING_LLM_CONCURRENCY", "1"),
    "llm_attempts": ("REDSTRING_LLM_ATTEMPTS", "2"),
    "max_tokens": ("REDSTRING_LLM_MAX_TOKENS", "700"),
    "structured_output": ("REDSTRING_STRUCTURED_OUTPUT", "json_object"),
}


@pytest.mark.parametrize("source", ["flags", "environment"])
def test_every_model_setting_reaches_the_provider_from_a_flag_or_the_environment(
    source: str,
) -> None:
    env = {"REDSTRING_LLM_BASE_URL": "http://127.0.0.1:9/v1", "REDSTRING_LLM_MODEL": "m"}
    if source == "flags":
        args = flags(**{attribute: value for attribute, (_, value) in MODEL_SETTINGS.items()})
    else:
        args = flags()
        env.update(dict(MODEL_SETTINGS.values()))
    llm = llm_provider(args, env)
    assert llm.max_concurrency == 1
    assert (llm._transport._timeout, llm._transport._max_attempts) == (7.5, 2)
    assert llm._max_tokens == 700
    assert llm._formats.candidates == ("json_object",)


def test_the_progress_bar_shows_count_rate_and_detail_and_nothing_when_quiet() -> None:
    shown, quiet = io.StringIO(), io.StringIO()
    bar = ProgressBar(shown, "indexing", unit="chunk")
    bar.update(1, 4, "a.md")
    bar.update(4, 4)
    bar.finish()
    bar.finish()  # harmless
    redraws = shown.getvalue().split("\r")
    assert any(" 1/4 [" in redraw and "a.md" in redraw for redraw in redraws)
    final = shown.getvalue().replace("\r", "\n").splitlines()[-1]
    assert final.startswith("indexing: 100%|")
    assert " 4/4 [" in final
    assert "chunk/s" in final
    silent = ProgressBar(quiet, "building", unit="doc", enabled=False)
    silent.update(1, 2)
    silent.finish()
    assert quiet.getvalue() == ""


class _Clock:
    """tqdm's clock, moved by hand: how often it redraws is then no matter of speed."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _redraws(stream: io.StringIO) -> list[str]:
    return [drawn for drawn in stream.getvalue().replace("\n", "\r").split("\r") if drawn]


def test_the_same_count_reported_again_is_not_drawn_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Indexing reports a count again as documents settle: into a log, each repeat was a
    line of its own (13 to 20 per count), and on an unread pipe it blocked the run."""
    clock = _Clock()
    monkeypatch.setattr(tqdm.std, "time", clock)
    stream = io.StringIO()
    bar = ProgressBar(stream, "indexing", unit="chunk")
    bar.update(0, 100)
    for done in (5, 6):
        for _ in range(200):
            clock.now += 1.0  # well past tqdm's mininterval every time
            bar.update(done, 100)
    bar.finish()
    counts = [drawn.split("|")[-1].split("[")[0].strip() for drawn in _redraws(stream)]
    assert counts == ["0/100", "5/100", "6/100", "6/100"]  # the last: the bar closing


def test_counts_reported_faster_than_the_mininterval_are_drawn_once_and_the_last_at_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = _Clock()
    monkeypatch.setattr(tqdm.std, "time", clock)
    stream = io.StringIO()
    bar = ProgressBar(stream, "indexing", unit="chunk")
    for done in range(1000):
        bar.update(done, 1000, "a.md")  # no time passes between them
    clock.now += 1.0
    bar.update(1000, 1000)
    bar.finish()
    redraws = _redraws(stream)
    assert len(redraws) == 3  # the first count, the one a second later, the closing state
    assert " 0/1000 [" in redraws[0]
    assert " 1000/1000 [" in redraws[-1]


def test_a_new_detail_is_drawn_at_once_and_a_repeated_one_not_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`build` names the chunk it waits on before the model's slow answer."""
    clock = _Clock()
    monkeypatch.setattr(tqdm.std, "time", clock)
    stream = io.StringIO()
    bar = ProgressBar(stream, "building", unit="doc")
    bar.update(0, 5, "checking the model server")
    for _ in range(100):
        bar.update(0, 5, "a.md: chunk 0/3")  # no time passes
    assert len(_redraws(stream)) == 2
    assert "a.md: chunk 0/3" in _redraws(stream)[-1]
