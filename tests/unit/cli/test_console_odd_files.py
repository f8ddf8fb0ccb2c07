"""`redstring index` and `build` over a folder holding a pipe and a link to /dev/zero.

Both commands read files with the one reader: each odd file is skipped with a
warning line and counted, never opened. Run in a subprocess whose address
space is bounded, so code that reads /dev/zero anyway fails at the bound
rather than eating the machine's memory; the pipe has a writer waiting
(`tests/unit/pipes.py`), so code that opens it reads nothing rather than hangs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.hang_guard import HANG_GUARD_SECONDS
from tests.unit.cli.console import Ran, clean_env
from tests.unit.pipes import watched_pipe

#: The address space a run may take, in KiB (`ulimit -v`): far above what indexing two
#: lines needs, far below what reading /dev/zero would take.
_ADDRESS_SPACE_KIB = 3 * 1024 * 1024


def _bounded(*argv: str, cwd: Path) -> Ran:
    """`python -m redstring.cli ARGV...` under `ulimit -v`, to completion."""
    done = subprocess.run(
        ["sh", "-c", f'ulimit -v {_ADDRESS_SPACE_KIB} && exec "$0" "$@"',
         sys.executable, "-m", "redstring.cli", *argv],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )  # fmt: skip
    return Ran(done.returncode, done.stdout, done.stderr)


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="needs named pipes, /dev/zero and ulimit -v"
)
def test_a_pipe_and_a_link_to_dev_zero_in_a_folder_are_skipped_by_index_and_build(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("Ada Lovelace wrote the first program.\n")
    (corpus / "zero.md").symlink_to("/dev/zero")
    db = str(tmp_path / "x.db")
    ran: dict[str, Ran] = {}
    for command in ("index", "build"):
        with watched_pipe(corpus / "pipe.md") as pipe:  # one writer, so one pipe per run
            ran[command] = _bounded(command, "corpus", "--db", db, "--embeddings", "none",
                                    "--quiet", cwd=tmp_path)  # fmt: skip
            assert not pipe.opened, command
        (corpus / "pipe.md").unlink()
    warnings = [
        "redstring: warning: skipped corpus/pipe.md: a pipe or socket, not a regular file",
        "redstring: warning: skipped corpus/zero.md: a link to a device, not a regular file",
    ]
    indexed, built = ran["index"], ran["build"]
    assert indexed.status == 0, indexed.err
    assert indexed.err.splitlines() == warnings
    assert indexed.out == (
        "indexed 1 document: 1 chunk written, 0 documents unchanged, "
        "0 chunks embedded, 2 files skipped\n"
    )
    assert built.status == 1  # no model configured: refused once the files were read
    assert built.err.splitlines()[:2] == warnings
    assert "--llm-base-url" in built.err.splitlines()[2]
