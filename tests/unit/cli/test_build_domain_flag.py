"""`redstring build --domain` takes a bundled schema's name or `auto`, checked at parse time.

Another name is a usage error (exit status 2) naming `--domain` and the
names it takes, before the model server is contacted or the database made.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from redstring.cli.main import main
from redstring.extraction.domains import bundled_domains
from tests.unit.adapters.openai_protocol_server import Reply, error, serve
from tests.unit.cli.console import SAMPLES


def _any(path: str, request: dict[str, Any], number: int) -> Reply:
    return error(500, "no request should reach the server")


def test_an_unknown_domain_is_a_usage_error_naming_the_flag_and_the_names(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    with serve(_any) as server:
        env = {"REDSTRING_LLM_BASE_URL": server.base_url, "REDSTRING_LLM_MODEL": "m"}
        err = io.StringIO()
        argv = ["build", str(SAMPLES), "--db", str(db), "--embeddings", "none", "--quiet"]
        status = main([*argv, "--domain", "bogus"], env=env, stdout=io.StringIO(), stderr=err)
        assert server.requests == []
    assert status == 2
    [line] = err.getvalue().splitlines()
    assert "usage error: argument --domain:" in line
    assert "'bogus'" in line
    for name in [*bundled_domains(), "auto"]:
        assert name in line
    assert "DomainSchema" not in line
    assert not db.exists()
