"""A second `redstring build` of the same files picks up where the first stopped.

Against the loopback test server: a server that dies after a few answers
(it drops every later connection unanswered, as a killed server does), then
a healthy one. The rerun asks the model only about the chunks that have no
answer yet, and says how many answers it reused; and it asks first in the
answer format the server accepted the first time.
"""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path
from typing import Any

from redstring.cli.main import main
from redstring.extraction.prompts import CLASSIFY_MARKER
from tests.unit.adapters.openai_protocol_server import Reply, Script, ScriptedServer, serve
from tests.unit.adapters.server_profiles import Profile, profiled
from tests.unit.cli.console import SAMPLES
from tests.unit.cli.sample_model import behaving_as

PASSAGE = "Passage 1 of 1"  # in every extraction prompt of the one-chunk samples


def _build(server: ScriptedServer, db: Path, *extra: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(
        ["build", str(SAMPLES), "--db", str(db), "--embeddings", "none", "--quiet", *extra],
        env={"REDSTRING_LLM_BASE_URL": server.base_url, "REDSTRING_LLM_MODEL": "m"},
        stdout=out,
        stderr=err,
    )
    return status, out.getvalue(), err.getvalue()


def _extraction_prompts(server: ScriptedServer) -> list[str]:
    prompts = [str(r["messages"][-1]["content"]) for r in server.calls("/chat/completions")]
    return [prompt for prompt in prompts if PASSAGE in prompt]


class _DiesAfter:
    """`script` until it has answered `answers` extraction requests; then every request drops.

    `answered` holds the extraction prompts it answered.
    """

    def __init__(self, answers: int, script: Script) -> None:
        self._answers = answers
        self._script = script
        self._lock = threading.Lock()
        self.answered: list[str] = []

    def __call__(self, path: str, request: dict[str, Any], number: int) -> Reply:
        prompt = str(request["messages"][-1]["content"])
        with self._lock:
            if len(self.answered) >= self._answers:
                return Reply(drop=True)
            if PASSAGE in prompt:
                self.answered.append(prompt)
        return self._script(path, request, number)


def test_a_rerun_asks_only_about_the_chunks_the_dead_server_left_unanswered(
    tmp_path: Path,
) -> None:
    db = tmp_path / "g.db"
    dying = _DiesAfter(2, behaving_as(Profile()))
    with serve(dying) as server:
        status, out, err = _build(server, db, "--max-failed-share", "1", "--json")
    assert status == 0, err
    assert len(json.loads(out)["failures"]) == 3
    with serve(behaving_as(Profile())) as healthy:
        status, out, err = _build(healthy, db, "--json")
        second = _extraction_prompts(healthy)
    assert status == 0, err
    report = json.loads(out)
    assert len(second) == 3
    assert not set(second) & set(dying.answered)
    assert report["chunks_reused"] == 2
    assert report["failures"] == []
    with serve(behaving_as(Profile())) as third_server:
        status, out, err = _build(third_server, db)
        third = _extraction_prompts(third_server)
    assert status == 0, err
    assert third == []  # every chunk answered now: nothing asked again
    assert "5 answers reused from earlier runs" in out


def test_the_domain_question_answered_before_is_not_asked_again(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    for _ in range(2):
        with serve(behaving_as(Profile())) as server:
            status, _, err = _build(server, db)
            asked = [
                r
                for r in server.calls("/chat/completions")
                if CLASSIFY_MARKER in str(r["messages"])
            ]
        assert status == 0, err
    assert asked == []


def test_another_model_is_asked_again_rather_than_given_the_first_models_answers(
    tmp_path: Path,
) -> None:
    db = tmp_path / "g.db"
    with serve(behaving_as(Profile())) as server:
        assert _build(server, db)[0] == 0
    with serve(behaving_as(Profile())) as server:
        out, err = io.StringIO(), io.StringIO()
        env = {"REDSTRING_LLM_BASE_URL": server.base_url, "REDSTRING_LLM_MODEL": "other"}
        argv = ["build", str(SAMPLES), "--db", str(db), "--embeddings", "none", "--quiet"]
        assert main(argv, env=env, stdout=out, stderr=err) == 0, err.getvalue()
        assert len(_extraction_prompts(server)) == 5


def _formats(server: ScriptedServer) -> list[str | None]:
    calls = server.calls("/chat/completions")
    return [(r.get("response_format") or {}).get("type") for r in calls]


def test_a_second_build_asks_first_in_the_format_the_server_took(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    refuses_json_schema = Profile(json_schema_status=500)
    with serve(behaving_as(refuses_json_schema)) as first:
        status, _, err = _build(first, db)
        assert status == 0, err
        assert _formats(first).count("json_schema") == 1
        port = first.server_address[1]
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "x.md").write_text((SAMPLES / "grace_hopper.md").read_text() + "\nMore.")
    with serve(behaving_as(refuses_json_schema), port=port) as second:
        out, err_stream = io.StringIO(), io.StringIO()
        argv = ["build", str(tmp_path / "more"), "--db", str(db), "--embeddings", "none"]
        env = {"REDSTRING_LLM_BASE_URL": second.base_url, "REDSTRING_LLM_MODEL": "m"}
        assert main([*argv, "--quiet"], env=env, stdout=out, stderr=err_stream) == 0
        formats = _formats(second)
    assert "json_schema" not in formats
    assert "json_object" in formats  # a new chunk was asked, in the remembered format
    assert "refused" not in err_stream.getvalue()


def _off_the_lists(prompt: str) -> dict[str, Any]:
    """An answer that parses but breaks the schema: a type outside the domain's lists."""
    if CLASSIFY_MARKER in prompt:
        return {"domain": "people_and_organisations", "confidence": 0.9}
    return {"entities": [{"name": "Analytical Engine", "type": "spaceship"}]}


def test_an_answer_read_loosely_is_kept_and_read_the_same_way_again(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    reports = []
    for _ in range(2):
        with serve(profiled(Profile(), _off_the_lists)) as server:
            status, out, err = _build(server, db, "--json")
            assert status == 0, err
            reports.append((json.loads(out), len(_extraction_prompts(server))))
    (first, asked_first), (second, asked_again) = reports
    assert (asked_first, asked_again) == (5, 0)
    assert second["chunks_reused"] == 5
    assert first["types_outside_domain"] == second["types_outside_domain"] == {"spaceship": 5}


def _entities_only(prompt: str) -> dict[str, Any]:
    """A small model: entities, never a relationship, unless asked about one pair."""
    if "Does the passage state a relationship between" in prompt:
        return {"related": True, "type": "related_to"}
    return {"entities": [{"name": "Ada", "type": "person"}, {"name": "London", "type": "location"}]}


def test_pair_questions_are_asked_when_the_flag_says_so_and_kept_for_a_rerun(
    tmp_path: Path,
) -> None:
    db = tmp_path / "g.db"
    asked = []
    for _ in range(2):
        with serve(profiled(Profile(), _entities_only)) as server:
            status, out, err = _build(
                server, db, "--domain", "general", "--pair-questions", "3", "--json"
            )
            assert status == 0, err
            asked.append(len(server.calls("/chat/completions")))
    report = json.loads(out)
    assert report["relationships_written"] == 1  # Ada - London, one pair in each document
    assert asked == [1 + 5 + 5, 1]  # the check, a chunk and a pair per document; then the check
