"""The blocking client's loop thread never hangs a caller and never outlives its client."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from redstring import Redstring
from redstring.errors import ClientClosedError, ReentrantCallError
from redstring.providers import FakeEmbeddingProvider
from redstring.storage.loop_thread import LoopThread
from tests.hang_guard import HANG_GUARD_SECONDS


def _in_thread(work: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """Run `work` in a daemon thread; its result or exception lands in the list."""
    outcome: list[object] = []

    def target() -> None:
        try:
            outcome.append(work())
        except BaseException as error:
            outcome.append(error)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, outcome


def _folder(tmp_path: Path, files: int) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for number in range(files):
        (folder / f"doc{number:03}.txt").write_text(f"Document {number} about Ada Lovelace.\n")
    return folder


def test_a_progress_callback_calling_the_client_is_refused_rather_than_hanging(
    tmp_path: Path,
) -> None:
    rs = Redstring(tmp_path / "x.db", embeddings="none")
    folder = _folder(tmp_path, 3)
    thread, outcome = _in_thread(lambda: rs.index(folder, progress=lambda done, total: rs.stats()))
    thread.join(HANG_GUARD_SECONDS)
    assert not thread.is_alive(), "index() hung: the callback's call waited on its own thread"
    assert len(outcome) == 1
    assert isinstance(outcome[0], ReentrantCallError)
    assert "stats()" in str(outcome[0])
    assert rs.stats().tenants  # the client still answers from outside
    rs.close()


class _StuckEmbeddings(FakeEmbeddingProvider):
    """Embeds nothing: the first call says it started and waits until cancelled."""

    def __init__(self) -> None:
        super().__init__(dimension=8)
        self.started = threading.Event()
        self.cancelled = threading.Event()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        raise AssertionError("never reached")


def test_close_from_another_thread_ends_a_running_index_with_a_clear_error(
    tmp_path: Path,
) -> None:
    embeddings = _StuckEmbeddings()
    rs = Redstring(tmp_path / "x.db", embeddings=embeddings)
    folder = _folder(tmp_path, 20)
    indexing, outcome = _in_thread(lambda: rs.index(folder))
    assert embeddings.started.wait(HANG_GUARD_SECONDS)
    closing, closed = _in_thread(rs.close)
    closing.join(HANG_GUARD_SECONDS)
    indexing.join(HANG_GUARD_SECONDS)
    assert not closing.is_alive(), "close() hung"
    assert not indexing.is_alive(), "index() never returned after close()"
    assert closed == [None]
    assert len(outcome) == 1
    assert isinstance(outcome[0], ClientClosedError)
    assert "index()" in str(outcome[0])
    with pytest.raises(ClientClosedError):
        rs.stats()


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts /proc/self/fd")
def test_clients_dropped_without_close_leave_no_threads_or_files(tmp_path: Path) -> None:
    def open_and_drop(number: int) -> None:
        rs = Redstring(tmp_path / f"x{number % 5}.db", embeddings="none")
        rs.stats()

    open_and_drop(0)  # first-use imports and caches settle before the count
    gc.collect()
    threads, fds = threading.active_count(), _fds()
    for number in range(100):
        open_and_drop(number)
    gc.collect()
    assert threading.active_count() <= threads
    assert _fds() <= fds


def test_a_progress_callback_closing_the_client_ends_the_index_rather_than_hanging(
    tmp_path: Path,
) -> None:
    rs = Redstring(tmp_path / "x.db", embeddings="none")
    folder = _folder(tmp_path, 3)
    closes: list[object] = []

    def close_on_first_step(done: int, total: int) -> None:
        if not closes:
            closes.append(rs.close())  # on the loop's own thread: only begins the stop

    thread, outcome = _in_thread(lambda: rs.index(folder, progress=close_on_first_step))
    thread.join(HANG_GUARD_SECONDS)
    assert not thread.is_alive(), "index() hung: close() waited on its own loop thread"
    assert closes == [None]
    assert len(outcome) == 1
    assert isinstance(outcome[0], ClientClosedError)
    assert "index()" in str(outcome[0])
    with pytest.raises(ClientClosedError):
        rs.stats()
    rs.close()  # harmless from outside as well


def _interrupt_the_wait(
    monkeypatch: pytest.MonkeyPatch, started: threading.Event, interruption: type[BaseException]
) -> None:
    """Raise `interruption` in this thread's next wait on a call, once the call has started.

    That is how Ctrl-C (or a signal handler's `sys.exit`) reaches a blocked caller: out
    of `Future.result`, in the caller's thread, while the call runs on the loop.
    """
    caller = threading.current_thread()
    result = concurrent.futures.Future.result
    interrupted: list[bool] = []

    def interrupted_result(
        future: concurrent.futures.Future[object], timeout: float | None = None
    ) -> object:
        if threading.current_thread() is caller and not interrupted:
            interrupted.append(True)
            assert started.wait(HANG_GUARD_SECONDS)
            raise interruption
        return result(future, timeout)

    monkeypatch.setattr(concurrent.futures.Future, "result", interrupted_result)


async def _other_tasks() -> int:
    return len(asyncio.all_tasks() - {asyncio.current_task()})


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, SystemExit])
def test_an_interrupted_caller_cancels_its_call_before_the_interruption_goes_on(
    monkeypatch: pytest.MonkeyPatch, interruption: type[BaseException]
) -> None:
    bridge = LoopThread("test-interrupted")
    started, cancelled = threading.Event(), threading.Event()

    async def wait_forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    try:
        _interrupt_the_wait(monkeypatch, started, interruption)
        with pytest.raises(interruption):
            bridge.run(wait_forever(), method="wait_forever")
        assert cancelled.is_set(), "the call runs on after its caller was interrupted"
        assert bridge.run(_other_tasks(), method="others") == 0  # the loop is idle again
    finally:
        bridge.stop()


def test_ctrl_c_during_index_stops_the_indexing_and_the_client_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embeddings = _StuckEmbeddings()
    rs = Redstring(tmp_path / "x.db", embeddings=embeddings)
    folder = _folder(tmp_path, 20)
    with monkeypatch.context() as patched:
        _interrupt_the_wait(patched, embeddings.started, KeyboardInterrupt)
        with pytest.raises(KeyboardInterrupt):
            rs.index(folder)
    assert embeddings.cancelled.is_set(), "indexing went on after Ctrl-C"
    assert [tenant.chunks for tenant in rs.stats().tenants] == [
        0
    ]  # nothing embedded, nothing written
    assert rs.passages("Ada", mode="lexical").matches == []
    rs.close()


_EXIT_WITHOUT_CLOSE = """
import sys
from redstring import Redstring, SourceDocument
rs = Redstring(sys.argv[1], embeddings="none")
rs.index(SourceDocument(id="ada", text="Ada Lovelace wrote the first program."))
"""


def test_a_client_left_open_at_interpreter_exit_is_closed_silently(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    ran = subprocess.run(
        [sys.executable, "-c", _EXIT_WITHOUT_CLOSE, str(db)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    assert "Exception in thread" not in ran.stderr
    assert not Path(f"{db}-wal").exists()  # the last connection closed: the stores were closed
    with Redstring(db, embeddings="none", create=False) as rs:
        assert [match.source_id for match in rs.passages("Ada").matches] == ["ada"]
        assert rs.check().ok
