"""What `redstring build` says when the model server fails: the command's words, said once.

An error names the flag the user can change (`--llm-timeout`, not the
library's `timeout`), no line is cut inside a word, and a server's
traceback is not repeated for every chunk that failed with it.
"""

from __future__ import annotations

import io
import re
import threading
from pathlib import Path
from typing import Any

from redstring.cli.main import main
from tests.unit.adapters.openai_protocol_server import Reply, ScriptedServer, chat, serve
from tests.unit.cli.console import SAMPLES

#: The library's names for what the command line calls --llm-timeout, ... .
PYTHON_NAMES = re.compile(
    r"(?<!-)\b(timeout|batch_size|max_concurrency|max_failed_share|max_tokens)\b"
)

WORDS = [f"word{n:04d}" for n in range(120)]
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/srv/llama_cpp/server/app.py", line 491, in create_chat_completion\n'
    "    grammar = LlamaGrammar.from_json_schema(schema)\n"
    f"RuntimeError: the grammar could not be built: {' '.join(WORDS)}"
)
LAST_LINE = TRACEBACK.splitlines()[-1]


def _build(server: ScriptedServer, db: Path, *extra: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(
        ["build", str(SAMPLES), "--db", str(db), "--embeddings", "none", "--quiet", *extra],
        env={"REDSTRING_LLM_BASE_URL": server.base_url, "REDSTRING_LLM_MODEL": "m"},
        stdout=out,
        stderr=err,
    )
    return status, out.getvalue(), err.getvalue()


def test_a_server_that_never_answers_in_time_is_one_line_naming_the_flags(
    tmp_path: Path,
) -> None:
    never = threading.Event()

    def held(path: str, request: dict[str, Any], number: int) -> Reply:
        return Reply(body=chat("OK").body, hold=never)

    with serve(held) as server:
        try:
            status, out, err = _build(
                server, tmp_path / "g.db", "--llm-timeout", "0.2", "--llm-attempts", "1"
            )
        finally:
            never.set()
    assert (status, out) == (1, "")
    [line] = err.splitlines()
    assert "--llm-timeout" in line
    assert "--llm-concurrency" in line
    assert PYTHON_NAMES.search(line) is None, line


def _refuses_every_chunk(path: str, request: dict[str, Any], number: int) -> Reply:
    if number == 1:
        return chat("OK")  # the check before the build
    return Reply(status=400, body=TRACEBACK.encode(), headers={"content-type": "text/plain"})


def test_a_servers_traceback_is_said_once_and_no_line_is_cut_inside_a_word(
    tmp_path: Path,
) -> None:
    with serve(_refuses_every_chunk) as server:
        status, out, err = _build(server, tmp_path / "g.db", "--domain", "general")
    assert status == 1
    [line] = err.splitlines()
    assert "Traceback" not in out + err
    assert (out + err).count("RuntimeError: the grammar could not be built") == 2  # report, line
    assert "5 of 5 chunks failed" in line
    assert "--max-failed-share 1" in line
    assert PYTHON_NAMES.search(line) is None, line
    for word in re.findall(r"\b(?:wo|wor|word\d*)\b", out + err):
        assert word in WORDS, f"{word!r} is cut inside the word"
