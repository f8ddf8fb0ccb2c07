"""The fault campaign's blocking-client cases (issue 27, items 1 to 3), each in its own process.

    python -m scripts.campaign_client CASE FOLDER     # prints one JSON line

- `reentrant`: `rs.index(folder, progress=lambda done, total: rs.stats())`, the
  callback calling the client on the client's own loop thread;
- `close`: thread A indexes 120 files, thread B calls `rs.close()` once A's
  first progress callback has run (so the close lands mid-index); A must return;
- `leak`: 100 `Redstring(db)` objects used once and dropped without `close()`:
  threads and file descriptors before and after.

The campaign runs each with a timeout: no line in time is a hang. A case
that raises is reported by its error class (a `RedstringError` is a refusal,
anything else raw).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scripts import ROOT

CASES = ("reentrant", "close", "leak")


def _folder(base: Path, files: int) -> Path:
    folder = base / f"docs-{files}"
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(files):
        text = " ".join(f"note {number} about engine {n % 7} and mill {n % 11}." for n in range(60))
        (folder / f"doc{number:03}.txt").write_text(text)
    return folder


def _outcome(work: Callable[[], Any]) -> str:
    from redstring import RedstringError  # noqa: PLC0415

    try:
        work()
    except RedstringError as error:
        return f"refused {type(error).__name__}"
    except Exception as error:
        return f"RAW {type(error).__name__}: {error}"
    return "accepted"


def _reentrant(base: Path) -> dict[str, Any]:
    from redstring import Redstring  # noqa: PLC0415

    rs = Redstring(base / "reentrant.db", embeddings="none")
    folder = _folder(base, 3)
    verdict = _outcome(lambda: rs.index(folder, progress=lambda done, total: rs.stats()))
    after = _outcome(rs.stats)  # the client still answers from outside
    rs.close()
    return {"verdict": verdict, "stats afterwards": after}


def _close(base: Path) -> dict[str, Any]:
    from redstring import Redstring  # noqa: PLC0415

    rs = Redstring(base / "close.db", embeddings="none")
    folder = _folder(base, 120)
    started = threading.Event()
    outcome: list[str] = []

    def index() -> None:
        outcome.append(_outcome(lambda: rs.index(folder, progress=lambda d, t: started.set())))

    indexing = threading.Thread(target=index, daemon=True)
    indexing.start()
    started.wait(30)
    closed = _outcome(rs.close)
    indexing.join(60)
    return {
        "verdict": outcome[0] if outcome else "HANG index() never returned after close()",
        "close": closed,
        "closed while indexing": started.is_set(),
    }


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _leak(base: Path) -> dict[str, Any]:
    from redstring import Redstring  # noqa: PLC0415

    def open_and_drop(number: int) -> None:
        rs = Redstring(base / f"leak{number % 5}.db", embeddings="none")
        rs.stats()

    open_and_drop(0)  # first-use imports and caches settle before the count
    gc.collect()
    threads, fds = threading.active_count(), _fds()
    for number in range(100):
        open_and_drop(number)
    gc.collect()
    time.sleep(0.5)
    extra_threads, extra_fds = threading.active_count() - threads, _fds() - fds
    leaked = extra_threads > 0 or extra_fds > 0
    return {
        "verdict": "LEAK" if leaked else "accepted",
        "threads": extra_threads,
        "fds": extra_fds,
    }


def run_case(case: str, base: Path, timeout: float) -> dict[str, Any]:
    """`case` in a child process; a child that prints nothing within `timeout` is a hang."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "scripts.campaign_client", case, str(base)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return {"verdict": f"HANG (no answer in {timeout:.0f} s)"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = done.stderr.strip().splitlines()[-1:] or [""]
        return {"verdict": f"RAW exit {done.returncode}: {last[0][:120]}"}
    found: dict[str, Any] = json.loads(lines[-1])
    return found


def main() -> None:
    case, folder = sys.argv[1], Path(sys.argv[2])
    folder.mkdir(parents=True, exist_ok=True)
    result = {"reentrant": _reentrant, "close": _close, "leak": _leak}[case](folder)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
