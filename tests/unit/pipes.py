"""A named pipe that tells whether anything opened it to read, and never leaves a test hanging.

Opening a FIFO to read waits until a writer opens it. A thread here opens it to
write as soon as it is made, so code that wrongly opens the pipe reads an empty
stream at once instead of waiting forever; and since the writer's open only
returns once a reader has opened the pipe, the thread knows whether one did.
At the end a reader that never waits holds the pipe open until the writer's
open returns, so the thread always ends, whatever the code under test did.
There is one writer, so one reader: a second reader of the same pipe would
wait, so give each run that might open it a pipe of its own.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.hang_guard import HANG_GUARD_SECONDS


class WatchedPipe:
    """A FIFO at `path` with a writer waiting on it; `opened` says whether a reader came."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._reader_came = threading.Event()
        os.mkfifo(path)
        self._writer = threading.Thread(target=self._write, daemon=True)
        self._writer.start()

    def _write(self) -> None:
        descriptor = os.open(self.path, os.O_WRONLY)  # returns once some reader opened the pipe
        self._reader_came.set()  # before the close, so a reader's end of stream comes after it
        os.close(descriptor)

    @property
    def opened(self) -> bool:
        """Whether a reader opened the pipe (meaningful once the code under test returned)."""
        return self._reader_came.is_set()

    def release(self) -> None:
        """Let the writer thread end: hold the pipe open to read until its open returns.

        Held rather than opened and closed at once: a writer that reaches its
        open only after the reader closed would wait for the next reader.
        """
        descriptor = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            self._reader_came.wait(HANG_GUARD_SECONDS)
        finally:
            os.close(descriptor)
        self._writer.join(HANG_GUARD_SECONDS)


@contextmanager
def watched_pipe(path: Path) -> Iterator[WatchedPipe]:
    """A `WatchedPipe` at `path`, its writer released when the block ends."""
    pipe = WatchedPipe(path)
    try:
        yield pipe
    finally:
        pipe.release()
