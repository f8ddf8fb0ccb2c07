"""`redstring build` shows where it is before the model's first (slow) answer.

The loopback server holds its answers until the test releases them, and
says when a request arrived; what stderr shows is read at that moment. No
clock is involved: "at once" means before the held answer is released.
"""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

from redstring.cli.main import main
from redstring.extraction.prompts import CLASSIFY_MARKER
from tests.hang_guard import HANG_GUARD_SECONDS
from tests.unit.adapters.openai_protocol_server import Reply, serve
from tests.unit.cli.console import SAMPLES
from tests.unit.cli.sample_model import script

PASSAGE = "Passage 1 of 1"


class _Held:
    """The sample model, holding the domain question's and the chunks' answers."""

    def __init__(self) -> None:
        self.domain_asked = threading.Event()
        self.domain_answer = threading.Event()
        self.chunk_asked = threading.Event()
        self.chunk_answers = threading.Event()

    def __call__(self, path: str, request: dict[str, Any], number: int) -> Reply:
        reply = script(path, request, number)
        prompt = str(request.get("messages", ""))
        if CLASSIFY_MARKER in prompt:
            self.domain_asked.set()
            return Reply(body=reply.body, hold=self.domain_answer)
        if PASSAGE in prompt:
            self.chunk_asked.set()
            return Reply(body=reply.body, hold=self.chunk_answers)
        return reply

    def release(self) -> None:
        self.domain_answer.set()
        self.chunk_answers.set()


def test_the_domain_question_and_the_first_chunk_are_announced_before_their_answers(
    tmp_path: Path,
) -> None:
    held = _Held()
    err = io.StringIO()
    status: list[int] = []
    with serve(held) as server:
        env = {"REDSTRING_LLM_BASE_URL": server.base_url, "REDSTRING_LLM_MODEL": "m"}
        argv = ["build", str(SAMPLES), "--db", str(tmp_path / "g.db"), "--embeddings", "none"]
        run = threading.Thread(
            target=lambda: status.append(main(argv, env=env, stdout=io.StringIO(), stderr=err))
        )
        run.start()
        try:
            assert held.domain_asked.wait(HANG_GUARD_SECONDS)
            while_asking = err.getvalue()
            held.domain_answer.set()
            assert held.chunk_asked.wait(HANG_GUARD_SECONDS)
            while_extracting = err.getvalue()
        finally:
            held.release()
            run.join(HANG_GUARD_SECONDS)
    assert status == [0]
    assert "domain" in while_asking
    assert "--domain general" in while_asking  # how to skip the question
    assert "0/5" in while_extracting  # the bar, before any chunk is answered
    assert "chunk 0/1" in while_extracting
