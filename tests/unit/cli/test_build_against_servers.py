"""`redstring build` against the conformance test bed, run as a user runs it (a subprocess).

The hardest profile: one request at a time, `json_object` only (500 to
`json_schema`), prose without a format, and one document whose chunk runs
away until the length limit cuts it.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from redstring.cli.main import main
from tests.unit.adapters.openai_protocol_server import Reply, ScriptedServer, error, serve
from tests.unit.adapters.server_profiles import hardest
from tests.unit.cli.console import Ran, assert_one_error_line, clean_env, redstring
from tests.unit.cli.sample_model import behaving_as

#: the extraction prompt of src/redstring/sample_docs/alan_turing.txt (one chunk)
RUNAWAY = "Passage 1 of 1:\n<<<\nAlan Turing\n"
EVERY_CHUNK = "Passage 1 of 1"  # in every extraction prompt of the one-chunk samples


def build(server: ScriptedServer, db: Path, *extra: str) -> Ran:
    env = clean_env(REDSTRING_LLM_BASE_URL=server.base_url, REDSTRING_LLM_MODEL="m")
    return redstring(
        "build", "src/redstring/sample_docs", "--db", str(db), "--embeddings", "none", "--json",
        "--quiet", *extra, env=env,
    )  # fmt: skip


def chats(server: ScriptedServer) -> list[dict[str, Any]]:
    return server.calls("/chat/completions")


def extraction_requests(server: ScriptedServer, marker: str) -> list[dict[str, Any]]:
    return [r for r in chats(server) if marker in r["messages"][-1]["content"]]


def test_the_hardest_profile_gives_every_chunk_an_extraction_or_a_stated_cause(
    tmp_path: Path,
) -> None:
    profile = hardest(RUNAWAY)
    with serve(behaving_as(profile), serial=profile.serial) as server:
        ran = build(server, tmp_path / "g.db")
    assert ran.status == 0, ran.err
    report = json.loads(ran.out)
    # every chunk: an extraction, or a failure with its cause
    [failure] = report["failures"]
    assert failure["document_id"].endswith("alan_turing.txt")
    assert failure["error_type"] == "TruncatedCompletionError"
    assert "cut off at the length limit" in failure["cause"]
    assert report["failure_causes"] == {"TruncatedCompletionError": 1}
    assert (report["chunks_written"], report["entities_written"]) == (5, 10)
    assert report["domain"] == "people_and_organisations"
    # max_tokens on every request, the refused format asked for once, the mode reported
    assert all(isinstance(r.get("max_tokens"), int) for r in chats(server))
    formats = [(r.get("response_format") or {}).get("type") for r in chats(server)]
    assert formats.count("json_schema") == 1
    assert report["answer_format"] == "json_object"
    # the runaway asked twice, never unchanged
    first, second = extraction_requests(server, RUNAWAY)
    assert second["max_tokens"] == 2 * first["max_tokens"]
    assert second["frequency_penalty"] > 0
    assert server.max_in_flight == 1


def test_a_build_where_every_chunk_fails_prints_its_report_and_exits_non_zero(
    tmp_path: Path,
) -> None:
    profile = hardest(EVERY_CHUNK)
    with serve(behaving_as(profile), serial=profile.serial) as server:
        ran = build(server, tmp_path / "g.db")
    assert ran.status == 1
    report = json.loads(ran.out)
    assert report["failure_causes"] == {"TruncatedCompletionError": 5}
    [line] = ran.err.splitlines()
    assert line.startswith(
        "redstring: error: 5 of 5 chunks failed, more than the 50% allowed "
        "(5 x TruncatedCompletionError: model 'm' was still writing when cut off"
    )
    for request in chats(server):
        if EVERY_CHUNK in request["messages"][-1]["content"]:
            assert request["max_tokens"] > 0
    assert len(extraction_requests(server, EVERY_CHUNK)) == 10  # each chunk twice, not more


def test_partial_results_are_accepted_when_asked_for(tmp_path: Path) -> None:
    profile = hardest(EVERY_CHUNK)
    with serve(behaving_as(profile), serial=profile.serial) as server:
        ran = build(server, tmp_path / "g.db", "--max-failed-share", "1")
    assert ran.status == 0, ran.err
    assert len(json.loads(ran.out)["failures"]) == 5


def _unknown_model(path: str, request: dict[str, Any], number: int) -> Reply:
    return error(404, "The model `m` does not exist.")


def _web_page(path: str, request: dict[str, Any], number: int) -> Reply:
    return Reply(body=b"<html><body>It works!</body></html>", headers={"content-type": "text/html"})


@pytest.mark.parametrize(
    ("script", "cause"),
    [
        (_unknown_model, "answered HTTP 404 after 1 attempt(s): The model `m` does not exist."),
        (_web_page, "sent an unusable answer: a body that is not JSON"),
    ],
)
def test_a_server_that_cannot_build_is_one_line_before_the_database_exists(
    tmp_path: Path, script: Any, cause: str
) -> None:
    with serve(script) as server:
        ran = build(server, tmp_path / "g.db")
        asked = len(chats(server))
    line = assert_one_error_line(ran)
    assert cause in line
    assert asked == 1  # the preflight, not one request per chunk
    assert not (tmp_path / "g.db").exists()


def test_without_the_openai_extra_build_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    err = io.StringIO()
    status = main(
        [
            "build",
            "src/redstring/sample_docs",
            "--db",
            str(tmp_path / "g.db"),
            "--embeddings",
            "none",
        ],
        env={"REDSTRING_LLM_BASE_URL": "http://127.0.0.1:9/v1", "REDSTRING_LLM_MODEL": "m"},
        stdout=io.StringIO(),
        stderr=err,
    )
    assert status == 1
    assert "pip install 'redstring[openai]'" in err.getvalue()
    assert not (tmp_path / "g.db").exists()


@pytest.mark.parametrize(
    ("flag", "value", "variable"),
    [
        ("--llm-timeout", "0", "REDSTRING_LLM_TIMEOUT"),
        ("--llm-timeout", "soon", "REDSTRING_LLM_TIMEOUT"),
        ("--llm-concurrency", "x", "REDSTRING_LLM_CONCURRENCY"),
        ("--llm-attempts", "-1", "REDSTRING_LLM_ATTEMPTS"),
        ("--max-tokens", "0", "REDSTRING_LLM_MAX_TOKENS"),
        ("--max-failed-share", "1.5", "REDSTRING_MAX_FAILED_SHARE"),
        ("--max-failed-share", "half", "REDSTRING_MAX_FAILED_SHARE"),
        ("--pair-questions", "-1", "REDSTRING_PAIR_QUESTIONS"),
    ],
)
def test_bad_build_settings_are_one_line_from_a_flag_or_the_environment(
    tmp_path: Path, flag: str, value: str, variable: str
) -> None:
    base = {"REDSTRING_LLM_BASE_URL": "http://127.0.0.1:9/v1", "REDSTRING_LLM_MODEL": "m"}
    argv = [
        "build",
        "src/redstring/sample_docs",
        "--db",
        str(tmp_path / "g.db"),
        "--embeddings",
        "none",
    ]
    err = io.StringIO()
    env = {**base, variable: value}
    assert main(argv, env=env, stdout=io.StringIO(), stderr=err) == 1
    assert f"{flag}={value!r} is not allowed" in err.getvalue()
    err = io.StringIO()  # the flag's value is a usage error, as every bad flag is
    assert main([*argv, flag, value], env=base, stdout=io.StringIO(), stderr=err) == 2
    assert f"argument {flag}: must be" in err.getvalue()
    assert repr(value) in err.getvalue()


def test_an_unknown_structured_output_is_one_line_naming_the_variable_and_the_choices(
    tmp_path: Path,
) -> None:
    env = {
        "REDSTRING_LLM_BASE_URL": "http://127.0.0.1:9/v1",
        "REDSTRING_LLM_MODEL": "m",
        "REDSTRING_STRUCTURED_OUTPUT": "xml",
    }
    argv = ["build", "src/redstring/sample_docs", "--db", str(tmp_path / "g.db")]
    err = io.StringIO()
    assert main([*argv, "--embeddings", "none"], env=env, stdout=io.StringIO(), stderr=err) == 1
    assert "REDSTRING_STRUCTURED_OUTPUT='xml' is not allowed" in err.getvalue()
    assert "json_schema" in err.getvalue()
    assert not (tmp_path / "g.db").exists()
