"""A reader that went away (`redstring passages ... | head -1`): a quiet exit, status 141.

In process, `main` is handed a stdout that raises `BrokenPipeError` on
write or on flush; in a subprocess, the read end of its stdout pipe is closed
before the process starts, so its first write fails every time: no timing.
"""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from redstring.cli.main import main
from tests.hang_guard import HANG_GUARD_SECONDS
from tests.unit.cli.console import ROOT, clean_env, redstring
from tests.unit.cli.mcp_fixture_server import opener_of
from tests.unit.cli.world import populated_stores

LEXICAL = ["--embeddings", "none"]
#: The status the command line's documentation promises.
READER_GONE = 141


class _GoneOnWrite(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


class _GoneOnFlush(io.StringIO):
    """Takes the writes into its buffer, as a pipe's buffered stdout does; fails the flush."""

    def flush(self) -> None:
        if self.getvalue():
            raise BrokenPipeError(32, "Broken pipe")


def _run(argv: list[str], out: io.StringIO) -> tuple[int, str]:
    stores, _ = asyncio.run(populated_stores())
    err = io.StringIO()
    status = main(argv, env={}, opener=opener_of(stores), stdout=out, stderr=err)
    return status, err.getvalue()


@pytest.mark.parametrize("stdout", [_GoneOnWrite, _GoneOnFlush])
@pytest.mark.parametrize("command", [["passages", "engine"], ["search", "Ada"], ["stats"]])
def test_a_reader_gone_ends_the_command_quietly_with_status_141(
    command: list[str], stdout: type[io.StringIO]
) -> None:
    status, err = _run([*command, "--db", "x.db", *LEXICAL], stdout())
    assert (status, err) == (READER_GONE, "")


def test_a_reader_gone_is_quiet_even_with_traceback() -> None:
    argv = ["--traceback", "passages", "engine", "--db", "x.db", *LEXICAL]
    status, err = _run(argv, _GoneOnWrite())
    assert (status, err) == (READER_GONE, "")


def _with_stdout_closed(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`python -m redstring.cli ARGV...` writing to a pipe nobody reads any more."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes a byte
    try:
        return subprocess.run(
            [sys.executable, "-m", "redstring.cli", *argv],
            cwd=cwd,
            env=clean_env(),
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=HANG_GUARD_SECONDS,
            check=False,
        )
    finally:
        os.close(write)


def test_passages_into_a_closed_pipe_exit_141_and_say_nothing(tmp_path: Path) -> None:
    (tmp_path / "ada.md").write_text("Ada Lovelace wrote the first program for the engine.\n")
    db = str(tmp_path / "x.db")
    assert redstring("index", "ada.md", "--db", db, "--quiet", *LEXICAL, cwd=tmp_path).status == 0
    done = _with_stdout_closed("passages", "ada", "--db", db, *LEXICAL, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (READER_GONE, "")


def test_a_reader_gone_from_a_stdout_without_a_descriptor_is_quiet_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`sys.stdout` replaced by an object with no file descriptor (as a test runner or an
    embedding program does): nothing to point at the null device, the exit stays quiet."""
    gone = _GoneOnWrite()
    monkeypatch.setattr(sys, "stdout", gone)
    stores, _ = asyncio.run(populated_stores())
    err = io.StringIO()
    status = main(["stats", "--db", "x.db", *LEXICAL], env={}, opener=opener_of(stores), stderr=err)
    assert (status, err.getvalue()) == (READER_GONE, "")
