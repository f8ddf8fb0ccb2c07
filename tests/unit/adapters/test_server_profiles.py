"""The conformance test bed behaves as the servers it stands for (raw HTTP, no SDK)."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Any

from tests.unit.adapters.openai_protocol_server import Reply, ScriptedServer, chat, serve
from tests.unit.adapters.server_profiles import (
    LOOP,
    PROSE,
    Profile,
    hardest,
    profiled,
    tokens,
)

ANSWER = {"entities": [{"name": "Ada Lovelace", "type": "person"}]}


def meaning(prompt: str) -> dict[str, Any]:
    return ANSWER


def post(server: ScriptedServer, body: dict[str, Any]) -> tuple[int, str]:
    request = urllib.request.Request(
        server.base_url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def ask(prompt: str = "a passage", **fields: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": prompt}], **fields}


SCHEMA_FORMAT = {"type": "json_schema", "json_schema": {"name": "a", "schema": {}}}
OBJECT_FORMAT = {"type": "json_object", "schema": {}}


def test_a_json_schema_format_gets_the_profiles_status_and_json_object_is_answered() -> None:
    with serve(profiled(Profile(json_schema_status=500), meaning)) as server:
        refused = post(server, ask(response_format=SCHEMA_FORMAT))
        status, body = post(server, ask(response_format=OBJECT_FORMAT))
    assert refused == (500, "Internal Server Error")
    assert status == 200
    assert json.loads(json.loads(body)["choices"][0]["message"]["content"]) == ANSWER


def test_a_server_without_json_object_refuses_it_with_400() -> None:
    with serve(profiled(Profile(json_object=False), meaning)) as server:
        status, body = post(server, ask(response_format=OBJECT_FORMAT))
        accepted, _ = post(server, ask(response_format=SCHEMA_FORMAT))
    assert (status, accepted) == (400, 200)
    assert "json_object" in json.loads(body)["error"]["message"]


def test_without_a_format_a_prose_model_answers_prose() -> None:
    with serve(profiled(Profile(prose_without_format=True), meaning)) as server:
        _, body = post(server, ask())
        _, constrained = post(server, ask(response_format=OBJECT_FORMAT))
    assert json.loads(body)["choices"][0]["message"]["content"] == PROSE
    assert json.loads(json.loads(constrained)["choices"][0]["message"]["content"]) == ANSWER


def test_an_answer_longer_than_max_tokens_is_cut_with_finish_reason_length() -> None:
    whole = tokens(json.dumps(ANSWER))
    with serve(profiled(Profile(), meaning)) as server:
        _, short = post(server, ask(max_tokens=whole - 1))
        _, enough = post(server, ask(max_tokens=whole))
    cut_choice = json.loads(short)["choices"][0]
    assert cut_choice["finish_reason"] == "length"
    assert tokens(cut_choice["message"]["content"]) == whole - 1
    assert json.loads(enough)["choices"][0]["finish_reason"] == "stop"


def test_a_runaway_repeats_itself_to_max_tokens_or_else_to_the_context_limit() -> None:
    profile = Profile(runaway="Ada Lovelace (1815", context_tokens=300)
    with serve(profiled(profile, meaning)) as server:
        _, bounded = post(server, ask("Ada Lovelace (1815-1852)", max_tokens=50))
        _, unbounded = post(server, ask("Ada Lovelace (1815-1852)"))
        _, other = post(server, ask("Charles Babbage"))
    for body, limit in ((bounded, 50), (unbounded, 300)):
        choice = json.loads(body)["choices"][0]
        assert choice["finish_reason"] == "length"
        assert tokens(choice["message"]["content"]) == limit
        assert choice["message"]["content"].count(LOOP) >= 2
    assert json.loads(other)["choices"][0]["finish_reason"] == "stop"


def _concurrently(server: ScriptedServer, count: int) -> list[int]:
    statuses: list[int] = []
    lock = threading.Lock()

    def one() -> None:
        status, _ = post(server, ask())
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    return statuses


def test_a_serial_server_answers_one_request_at_a_time() -> None:
    arrived = threading.Barrier(3, timeout=0.5)

    def meets_the_others(path: str, request: dict[str, Any], number: int) -> Reply:
        try:
            arrived.wait()
        except threading.BrokenBarrierError:
            return chat("alone")
        return chat("together")

    with serve(meets_the_others, serial=True) as server:
        assert _concurrently(server, 3) == [200, 200, 200]
        assert server.max_in_flight == 1
    # the same script answered concurrently: now the three must meet, however slow
    # the machine (the serial server above can only show it by the wait running out)
    arrived = threading.Barrier(3, timeout=30)
    with serve(meets_the_others) as server:
        assert _concurrently(server, 3) == [200, 200, 200]
        assert server.max_in_flight == 3


def test_the_hardest_profile_combines_the_behaviours() -> None:
    profile = hardest("runs away")
    assert (profile.serial, profile.json_schema_status, profile.json_object) == (True, 500, True)
    assert profile.prose_without_format
    with serve(profiled(profile, meaning), serial=profile.serial) as server:
        _, body = post(server, ask("this one runs away", response_format=OBJECT_FORMAT))
    assert json.loads(body)["choices"][0]["finish_reason"] == "length"
