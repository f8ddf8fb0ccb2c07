"""The test server is stopped by the PID its `postmaster.pid` names, never another program's."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from psycopg.conninfo import conninfo_to_dict

from tests.postgres_server import URL_VARIABLE, postmaster_pid


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads which program a PID is in /proc")
def test_a_stale_pid_file_naming_another_program_names_no_postmaster(tmp_path: Path) -> None:
    (tmp_path / "postmaster.pid").write_text(f"{os.getpid()}\n{tmp_path}\n")
    assert "postgres" not in Path(f"/proc/{os.getpid()}/comm").read_text()
    assert postmaster_pid(tmp_path) is None


def test_no_pid_file_names_no_postmaster(tmp_path: Path) -> None:
    assert postmaster_pid(tmp_path) is None


@pytest.mark.skipif(sys.platform != "linux", reason="the running server's process name")
@pytest.mark.skipif(URL_VARIABLE in os.environ, reason="an outside server: no PID file here")
def test_the_running_servers_pid_file_names_it(postgres_server_url: str) -> None:
    data_dir = Path(str(conninfo_to_dict(postgres_server_url)["host"]))  # its socket folder
    assert postmaster_pid(data_dir) is not None
