"""The local model on every core: forward passes in parallel, answers identical to one thread."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from typing import Any

import pytest

from redstring.client.embeddings import local_extra_installed
from redstring.errors import InvalidSettingError
from redstring.llm.local_embedding import LocalEmbeddingProvider

pytestmark = [
    pytest.mark.usefixtures("no_network"),
    pytest.mark.skipif(not local_extra_installed(), reason="needs the `local` extra"),
]

#: Long enough for a hang, never reached by two threads that do meet.
MEETING_SECONDS = 120

TEXTS = [
    ("Ada Lovelace wrote the first program for the analytical engine. " * n)[: 40 + 97 * n]
    for n in range(1, 13)
] + ["Grace Hopper", "a moth in a relay", "COBOL"]


def test_by_default_as_many_forward_passes_run_at_once_as_the_machine_has_cores() -> None:
    assert LocalEmbeddingProvider().threads == len(os.sched_getaffinity(0))
    assert LocalEmbeddingProvider(threads=3).threads == 3
    with pytest.raises(InvalidSettingError, match="threads"):
        LocalEmbeddingProvider(threads=0)


def test_every_thread_count_gives_the_one_thread_vectors_exactly() -> None:
    async def vectors(threads: int) -> list[list[float]]:
        provider = LocalEmbeddingProvider(threads=threads, max_batch_tokens=64)
        return await provider.embed(TEXTS)

    one = asyncio.run(vectors(1))
    assert asyncio.run(vectors(2)) == one
    assert asyncio.run(vectors(5)) == one


def test_two_threads_run_two_forward_passes_at_the_same_time() -> None:
    provider = LocalEmbeddingProvider(threads=2, max_batch_tokens=64)
    forward = provider._forward
    meeting = threading.Barrier(2, timeout=MEETING_SECONDS)
    calls = iter(range(1_000))
    lock = threading.Lock()

    def meet_then_forward(encodings: Any) -> list[list[float]]:
        with lock:
            call = next(calls)
        if call < 2:  # the first two passes: the second must start while the first waits
            with contextlib.suppress(threading.BrokenBarrierError):
                meeting.wait()
        return forward(encodings)

    provider._forward = meet_then_forward  # type: ignore[method-assign]
    asyncio.run(provider.load())
    asyncio.run(provider.embed(TEXTS))
    assert not meeting.broken, "the forward passes ran one after another"
