"""The chat provider against the conformance test bed: formats, bounds, runaways, queueing."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any

import pytest

from redstring.domain.completion import MIN_ANSWER_TOKENS, answer_token_bound
from redstring.domain.errors import (
    InvalidSettingError,
    MissingExtraError,
    ModelServerError,
    ModelServerResponseError,
    ModelServerStatusError,
    ModelServerTimeoutError,
    TruncatedCompletionError,
)
from redstring.llm._openai_transport import OpenAITransport
from redstring.llm.openai_compatible import (
    OpenAICompatibleEmbeddingProvider,
    OpenAICompatibleLlmProvider,
)
from tests.unit.adapters.openai_protocol_server import Reply, ScriptedServer, chat, error, serve
from tests.unit.adapters.server_profiles import Profile, hardest, profiled

SCHEMA = {
    "type": "object",
    "properties": {"entities": {"type": "array"}},
    "required": ["entities"],
}
ANSWER = {"entities": [{"name": "Ada Lovelace", "type": "person"}]}
RUNAWAY = "Ada Lovelace (1815"
FAST = {"initial_backoff": 0.01, "max_backoff": 0.05, "timeout": 5.0}


def meaning(prompt: str) -> dict[str, Any]:
    return ANSWER


def provider(server: ScriptedServer, **overrides: Any) -> OpenAICompatibleLlmProvider:
    settings: dict[str, Any] = {"base_url": server.base_url, "model": "m", **FAST, **overrides}
    return OpenAICompatibleLlmProvider(**settings)


async def ask(llm: OpenAICompatibleLlmProvider, user: str = "a passage") -> dict[str, Any]:
    return await llm.complete_json(system="Extract.", user=user, schema=SCHEMA)


def formats(server: ScriptedServer) -> list[str | None]:
    return [(r.get("response_format") or {}).get("type") for r in server.calls("/chat/completions")]


@pytest.mark.asyncio
async def test_a_500_to_json_schema_falls_back_to_json_object_once_and_remembers_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="redstring.llm")
    with serve(profiled(Profile(json_schema_status=500), meaning)) as server:
        llm = provider(server)
        answers = await asyncio.gather(*(ask(llm) for _ in range(4)))
        assert await ask(llm) == ANSWER
    assert answers == [ANSWER] * 4
    assert formats(server) == ["json_schema"] + ["json_object"] * 5
    assert llm.answer_format == "json_object"
    object_request = server.calls("/chat/completions")[1]
    assert object_request["response_format"]["schema"] == SCHEMA
    assert json.dumps(SCHEMA) in object_request["messages"][0]["content"]
    assert "refused the json_schema answer format with HTTP 500" in caplog.text
    assert "answers in the json_object format" in caplog.text


@pytest.mark.asyncio
async def test_a_server_taking_neither_format_gets_the_schema_in_the_prompt() -> None:
    profile = Profile(json_schema_status=400, json_object=False)
    with serve(profiled(profile, meaning)) as server:
        llm = provider(server)
        assert await ask(llm) == ANSWER
        assert await ask(llm) == ANSWER
    assert formats(server) == ["json_schema", "json_object", None, None]
    assert llm.answer_format == "text"


@pytest.mark.asyncio
async def test_a_transient_error_while_negotiating_is_retried_not_taken_for_a_refusal() -> None:
    def busy_once(path: str, request: dict[str, Any], number: int) -> Reply:
        return error(503, "loading model") if number == 1 else chat(json.dumps(ANSWER))

    with serve(busy_once) as server:
        llm = provider(server)
        assert await ask(llm) == ANSWER
    assert formats(server) == ["json_schema", "json_schema"]
    assert llm.answer_format == "json_schema"


@pytest.mark.asyncio
async def test_an_error_that_is_not_a_format_refusal_ends_the_negotiation_at_once() -> None:
    def unauthorised(path: str, request: dict[str, Any], number: int) -> Reply:
        return error(401, "invalid api key")

    with serve(unauthorised) as server:
        llm = provider(server)
        with pytest.raises(ModelServerStatusError, match="Check `api_key`") as raised:
            await ask(llm)
    assert formats(server) == ["json_schema"]  # not taken for a refusal of the format
    assert raised.value.status == 401
    assert llm.answer_format is None


@pytest.mark.asyncio
async def test_every_request_sends_max_tokens_derived_from_the_prompt_or_set() -> None:
    long_passage = "Ada Lovelace wrote the first program. " * 200
    with serve(profiled(Profile(), meaning)) as server:
        await ask(provider(server))
        await ask(provider(server), long_passage)
        await ask(provider(server, max_tokens=300))
        await provider(server).check()
    sent = [request["max_tokens"] for request in server.calls("/chat/completions")]
    assert sent == [MIN_ANSWER_TOKENS, answer_token_bound(long_passage), 300, 1]
    assert answer_token_bound(long_passage) == 3 * len(long_passage) // 4 > MIN_ANSWER_TOKENS


@pytest.mark.asyncio
async def test_a_runaway_is_asked_again_once_with_a_larger_bound_and_a_penalty_then_fails() -> None:
    with serve(profiled(Profile(runaway=RUNAWAY), meaning)) as server:
        llm = provider(server, max_tokens=200)
        with pytest.raises(TruncatedCompletionError, match="max_tokens 200 then 400") as raised:
            await ask(llm, RUNAWAY + "-1852) wrote notes.")
        sent = server.calls("/chat/completions")
    assert [(r["max_tokens"], r.get("frequency_penalty")) for r in sent] == [
        (200, None),
        (400, 0.5),
    ]
    assert raised.value.max_tokens == [200, 400]


@pytest.mark.asyncio
async def test_an_answer_cut_once_succeeds_with_the_larger_bound() -> None:
    whole = len(json.dumps(ANSWER)) // 4 + 1
    with serve(profiled(Profile(), meaning)) as server:
        llm = provider(server, max_tokens=whole - 5, runaway_penalty=0.0)
        assert await ask(llm) == ANSWER
        sent = server.calls("/chat/completions")
    assert [(r["max_tokens"], "frequency_penalty" in r) for r in sent] == [
        (whole - 5, False),
        (2 * (whole - 5), False),
    ]


@pytest.mark.parametrize(
    ("setting", "value"),
    [("structured_output", "yes"), ("max_tokens", 0), ("runaway_penalty", 3.0)],
)
def test_bad_settings_are_refused_naming_the_setting(setting: str, value: object) -> None:
    with pytest.raises(InvalidSettingError, match=setting):
        OpenAICompatibleLlmProvider(base_url="http://x/v1", model="m", **{setting: value})


@pytest.mark.asyncio
async def test_check_names_an_unknown_model_and_a_server_that_is_not_the_protocol() -> None:
    def unknown(path: str, request: dict[str, Any], number: int) -> Reply:
        return error(404, "model 'nope' not found")

    def html(path: str, request: dict[str, Any], number: int) -> Reply:
        return Reply(body=b"<html>a web page</html>", headers={"content-type": "text/html"})

    def mislabelled(path: str, request: dict[str, Any], number: int) -> Reply:
        return Reply(body=b"<html>a web page</html>")

    with serve(unknown) as server, pytest.raises(ModelServerError, match="Check `model`"):
        await provider(server).check()
    for script in (html, mislabelled):
        with serve(script) as server, pytest.raises(ModelServerResponseError, match="not JSON"):
            await provider(server).check()


@pytest.mark.asyncio
async def test_providers_close_their_client_and_open_a_new_one_when_used_again() -> None:
    with serve(profiled(Profile(), meaning)) as server:
        async with provider(server) as llm:
            assert await ask(llm) == ANSWER
            client = llm._transport._client
            assert client is not None
        assert client.is_closed()
        assert llm._transport._client is None
        assert await ask(llm) == ANSWER  # reopened
        await llm.aclose()
        async with OpenAICompatibleEmbeddingProvider(
            base_url=server.base_url, model="e", dimension=2
        ) as embedder:
            await embedder.aclose()  # closing a provider that never called is a no-op


def user_text(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


@pytest.mark.asyncio
async def test_queueing_on_a_one_at_a_time_server_is_not_charged_as_a_model_timeout(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A first request settles the answer format alone. Then three go at once:
    # "passage 0" takes the first slot (no company) and the model answers it at
    # once; the first sending of passages 1 and 2 sits in the server's queue,
    # held until the test ends, so each times out whatever the machine's speed.
    # They had company, so each is retried without using its single attempt,
    # and the retries are answered at once.
    queue = threading.Event()
    seen: list[str] = []

    def one_slot(path: str, request: dict[str, Any], number: int) -> Reply:
        passage = user_text(request)
        held = passage in ("passage 1", "passage 2") and passage not in seen
        seen.append(passage)
        return Reply(body=chat(json.dumps(ANSWER)).body, hold=queue if held else None)

    try:
        with serve(one_slot) as server:
            llm = provider(server, timeout=2.0, max_attempts=1, structured_output="text")
            assert await ask(llm, "settle the format") == ANSWER
            answers = await asyncio.gather(*(ask(llm, f"passage {i}") for i in range(3)))
    finally:
        queue.set()
    assert answers == [ANSWER] * 3
    assert sorted(seen) == ["passage 0"] + [f"passage {i}" for i in (1, 1, 2, 2)] + [
        "settle the format"
    ]
    assert llm._transport.limit.limit < 4
    assert "concurrency lowered" in caplog.text


@pytest.mark.asyncio
async def test_a_timeout_with_no_other_request_in_flight_is_charged() -> None:
    never = threading.Event()

    def held(path: str, request: dict[str, Any], number: int) -> Reply:
        return Reply(body=chat(json.dumps(ANSWER)).body, hold=never)

    try:
        with serve(held) as server:
            llm = provider(server, timeout=0.3, max_attempts=2, structured_output="text")
            with pytest.raises(ModelServerTimeoutError, match="2 attempt"):
                await ask(llm)
            assert len(server.requests) == 2
    finally:
        never.set()


@pytest.mark.asyncio
async def test_the_hardest_profile_settles_on_json_object_and_bounds_the_runaway() -> None:
    with serve(profiled(hardest(RUNAWAY), meaning), serial=True) as server:
        llm = provider(server, max_concurrency=4)
        results = await asyncio.gather(
            ask(llm, "Charles Babbage"),
            ask(llm, RUNAWAY + ")"),
            ask(llm, "Grace Hopper"),
            return_exceptions=True,
        )
    assert results[0] == results[2] == ANSWER
    assert isinstance(results[1], TruncatedCompletionError)
    assert formats(server).count("json_schema") == 1
    assert all("max_tokens" in request for request in server.calls("/chat/completions"))


@pytest.mark.parametrize("key", ["k\u00e9y", "sk-\u2014abc", "sk-abc\n"])
def test_an_api_key_no_http_header_can_carry_is_refused_without_echoing_it(key: str) -> None:
    with pytest.raises(InvalidSettingError, match="api_key holds a character") as raised:
        OpenAICompatibleLlmProvider(base_url="http://x/v1", model="m", api_key=key)
    assert key not in str(raised.value)


@pytest.mark.asyncio
async def test_an_error_of_the_callers_own_making_is_not_called_the_servers_answer() -> None:
    # The transport translates what the server sent; a ValueError raised while
    # the request is built (the SDK's or httpx's own argument checks) is not an
    # unusable answer and must reach the caller as itself.
    transport = OpenAITransport(
        base_url="http://127.0.0.1:9/v1",
        model="m",
        api_key=None,
        timeout=1.0,
        max_concurrency=1,
        max_attempts=3,
        initial_backoff=0.01,
        max_backoff=0.01,
    )

    async def builds_a_bad_request(client: object) -> None:
        raise ValueError("an argument of the call is invalid")

    with pytest.raises(ValueError, match="an argument of the call is invalid") as raised:
        await transport.call(builds_a_bad_request)
    assert not isinstance(raised.value, ModelServerError)
    await transport.close()


def test_without_the_openai_package_the_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys  # noqa: PLC0415

    monkeypatch.setitem(sys.modules, "openai", None)
    llm = OpenAICompatibleLlmProvider(base_url="http://127.0.0.1:9/v1", model="m")
    with pytest.raises(MissingExtraError, match="openai"):
        asyncio.run(llm.check())
