"""A deterministic embedding provider with no model, for tests and examples."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from redstring.domain.normalization import normalize_name
from redstring.domain.validation import require_vector_dimension


class FakeEmbeddingProvider:
    """Deterministic unit vectors from hashed words: no model, no network.

    A text's vector is the normalised sum of one pseudo-random vector per word
    (seeded by a SHA-256 of the word), so texts sharing words point in similar
    directions and identical texts (after `normalize_name`) embed identically.
    It carries no meaning beyond shared words. Query and document sides are
    the same. Any positive dimension works, including realistic ones.
    """

    def __init__(self, *, dimension: int) -> None:
        self._dimension = require_vector_dimension(dimension)
        self._word_vectors: dict[str, np.ndarray[tuple[int], np.dtype[np.float64]]] = {}

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def model(self) -> str:
        """`fake-hashed-words`: no model, named so events can say so."""
        return "fake-hashed-words"

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(text) for text in texts]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.embed(texts)

    def _vector(self, text: str) -> list[float]:
        words = normalize_name(text).split() or [""]
        total = np.zeros(self._dimension, dtype=np.float64)
        for word in words:
            total += self._word_vector(word)
        norm = float(np.linalg.norm(total))
        return [float(x) for x in total / norm]

    def _word_vector(self, word: str) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
        cached = self._word_vectors.get(word)
        if cached is None:
            seed = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "big")
            cached = np.random.default_rng(seed).standard_normal(self._dimension)
            self._word_vectors[word] = cached
        return cached
