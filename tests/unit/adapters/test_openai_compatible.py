"""The OpenAI-compatible providers, run over real HTTP against a scripted server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from redstring.errors import (
    DimensionMismatchError,
    EmptyCompletionError,
    InvalidSettingError,
    MalformedCompletionError,
    MissingExtraError,
    ModelServerError,
    ModelServerResponseError,
    ModelServerTimeoutError,
    ModelServerUnreachableError,
    RefusedCompletionError,
)
from redstring.llm.openai_compatible import (
    OpenAICompatibleEmbeddingProvider,
    OpenAICompatibleLlmProvider,
)
from redstring.ports import EmbeddingProvider
from redstring.testing.embedding_provider import EmbeddingProviderCompliance
from tests.unit.adapters.openai_protocol_server import (
    Reply,
    ScriptedServer,
    chat,
    embeddings,
    error,
    serve,
    vector_for,
)

DIM = 16
FAST = {"initial_backoff": 0.01, "max_backoff": 0.05}


def embedder(server: ScriptedServer, **overrides: Any) -> OpenAICompatibleEmbeddingProvider:
    settings: dict[str, Any] = {
        "base_url": server.base_url,
        "model": "scripted-embed",
        "dimension": DIM,
        "timeout": 5.0,
        **FAST,
    }
    settings.update(overrides)
    return OpenAICompatibleEmbeddingProvider(**settings)


def normal(path: str, request: dict[str, Any], number: int) -> Reply:
    return embeddings(request, DIM)


class TestOpenAICompatibleEmbeddingCompliance(EmbeddingProviderCompliance):
    @pytest.fixture(autouse=True)
    def _server(self) -> Iterator[None]:
        with serve(normal) as server:
            self.server = server
            yield

    async def make_provider(self) -> EmbeddingProvider:
        return embedder(self.server, batch_size=2)


@pytest.mark.asyncio
async def test_texts_go_in_batches_and_come_back_in_input_order() -> None:
    def reversed_items(path: str, request: dict[str, Any], number: int) -> Reply:
        return embeddings(request, DIM, reverse=True)

    texts = ["Ada Lovelace", "Charles Babbage", "Grace Hopper", "Alan Turing", "Emmy Noether"]
    with serve(reversed_items) as server:
        vectors = await embedder(server, batch_size=2).embed(texts)
        sent = [call["input"] for call in server.calls("/embeddings")]
    assert sorted(map(len, sent)) == [1, 2, 2]
    assert sorted(text for batch in sent for text in batch) == sorted(texts)
    assert vectors == [pytest.approx(vector_for(text, DIM)) for text in texts]


@pytest.mark.asyncio
async def test_an_empty_input_makes_no_call() -> None:
    with serve(normal) as server:
        provider = embedder(server)
        assert await provider.embed([]) == []
        assert await provider.embed_query([]) == []
        assert server.requests == []


@pytest.mark.asyncio
async def test_query_and_document_prefixes_reach_the_server() -> None:
    with serve(normal) as server:
        provider = embedder(server, query_prefix="query: ", document_prefix="passage: ")
        [query] = await provider.embed_query(["Babbage"])
        [document] = await provider.embed(["Babbage"])
        sent = [call["input"] for call in server.calls("/embeddings")]
    assert sent == [["query: Babbage"], ["passage: Babbage"]]
    assert query == pytest.approx(vector_for("query: Babbage", DIM))
    assert document == pytest.approx(vector_for("passage: Babbage", DIM))


@pytest.mark.asyncio
async def test_a_vector_of_the_wrong_length_names_the_model() -> None:
    def eight(path: str, request: dict[str, Any], number: int) -> Reply:
        return embeddings(request, 8)

    with (
        serve(eight) as server,
        pytest.raises(DimensionMismatchError, match="scripted-embed") as raised,
    ):
        await embedder(server).embed(["Ada Lovelace"])
    assert (raised.value.expected, raised.value.actual) == (DIM, 8)


@pytest.mark.asyncio
async def test_a_missing_vector_is_an_unusable_answer() -> None:
    def short(path: str, request: dict[str, Any], number: int) -> Reply:
        reply = embeddings(request, DIM)
        reply.body["data"].pop()
        return reply

    with serve(short) as server, pytest.raises(ModelServerResponseError, match=r"2 texts sent"):
        await embedder(server).embed(["Ada", "Grace"])


@pytest.mark.asyncio
async def test_a_body_that_is_not_json_is_an_unusable_answer() -> None:
    def garbage(path: str, request: dict[str, Any], number: int) -> Reply:
        return Reply(body=b'{"object": "list", "data": [')

    with serve(garbage) as server:
        with pytest.raises(ModelServerResponseError, match=server.base_url):
            await embedder(server).embed(["Ada"])
        assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_requests_in_flight_never_exceed_max_concurrency() -> None:
    # Requests are answered in threes: each waits until two others are in the
    # server too, so three are in flight at once whatever the machine's speed,
    # and a fourth sent meanwhile would be counted.
    three = threading.Barrier(3, timeout=30)

    def in_threes(path: str, request: dict[str, Any], number: int) -> Reply:
        try:
            three.wait()
        except threading.BrokenBarrierError:
            return error(400, "fewer than three requests were in flight together")
        return embeddings(request, DIM)

    texts = [f"text {i}" for i in range(18)]
    with serve(in_threes) as server:
        vectors = await embedder(server, batch_size=2, max_concurrency=3).embed(texts)
        assert len(server.requests) == 9
        assert server.max_in_flight == 3
    assert vectors == [pytest.approx(vector_for(text, DIM)) for text in texts]


@pytest.mark.asyncio
async def test_a_rate_limit_is_retried_then_succeeds() -> None:
    def limited_once(path: str, request: dict[str, Any], number: int) -> Reply:
        if number == 1:
            return error(429, "slow down", **{"retry-after": "0.02"})
        return embeddings(request, DIM)

    with serve(limited_once) as server:
        [vector] = await embedder(server).embed(["Ada"])
        assert len(server.requests) == 2
    assert vector == pytest.approx(vector_for("Ada", DIM))


@pytest.mark.asyncio
async def test_a_server_error_forever_stops_after_max_attempts() -> None:
    def broken(path: str, request: dict[str, Any], number: int) -> Reply:
        return error(500, "the GPU caught fire")

    with serve(broken) as server:
        with pytest.raises(ModelServerError, match="the GPU caught fire") as raised:
            await embedder(server, max_attempts=3).embed(["Ada"])
        assert len(server.requests) == 3
    assert (raised.value.status, raised.value.attempts) == (500, 3)


@pytest.mark.asyncio
async def test_a_client_error_fails_at_once_with_the_servers_message() -> None:
    def bad_request(path: str, request: dict[str, Any], number: int) -> Reply:
        return error(400, "input is too long for this model")

    with serve(bad_request) as server:
        with pytest.raises(ModelServerError, match="input is too long") as raised:
            await embedder(server, max_attempts=5).embed(["Ada"])
        assert len(server.requests) == 1
    assert raised.value.status == 400
    assert raised.value.server_message == "input is too long for this model"


@pytest.mark.asyncio
async def test_a_slow_server_times_out_on_every_attempt() -> None:
    never = threading.Event()

    def held(path: str, request: dict[str, Any], number: int) -> Reply:
        return Reply(body=embeddings(request, DIM).body, hold=never)

    try:
        with serve(held) as server:
            with pytest.raises(ModelServerTimeoutError, match=r"within 0\.3 s") as raised:
                await embedder(server, timeout=0.3, max_attempts=2).embed(["Ada"])
            assert len(server.requests) == 2
    finally:
        never.set()
    assert raised.value.attempts == 2


@pytest.mark.asyncio
async def test_a_timeout_is_retried_then_succeeds() -> None:
    never = threading.Event()

    def held_once(path: str, request: dict[str, Any], number: int) -> Reply:
        return Reply(body=embeddings(request, DIM).body, hold=never if number == 1 else None)

    try:
        with serve(held_once) as server:
            [vector] = await embedder(server, timeout=2.0).embed(["Ada"])
            assert len(server.requests) == 2
    finally:
        never.set()
    assert vector == pytest.approx(vector_for("Ada", DIM))


@pytest.mark.asyncio
async def test_an_unreachable_server_names_the_url_and_what_to_check() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"
    provider = OpenAICompatibleEmbeddingProvider(base_url=base_url, model="m", dimension=DIM)
    with pytest.raises(ModelServerUnreachableError, match="server is running") as raised:
        await provider.embed(["Ada"])
    assert base_url in str(raised.value)


@pytest.mark.asyncio
async def test_the_environment_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    with serve(normal) as server:
        await embedder(server).embed(["Ada"])
        await embedder(server, api_key="sk-given").embed(["Ada"])
        assert server.authorizations == ["Bearer no-key", "Bearer sk-given"]


@pytest.mark.asyncio
async def test_without_the_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    provider = OpenAICompatibleEmbeddingProvider(
        base_url="http://127.0.0.1:9/v1", model="m", dimension=DIM
    )
    with pytest.raises(MissingExtraError, match=r"redstring\[openai\]"):
        await provider.embed(["Ada"])


@pytest.mark.parametrize(
    "setting",
    [{"dimension": 0}, {"batch_size": 0}, {"max_concurrency": 0}, {"max_attempts": 0}],
)
def test_settings_out_of_range_are_refused(setting: dict[str, int]) -> None:
    arguments: dict[str, Any] = {"base_url": "http://x/v1", "model": "m", "dimension": DIM}
    with pytest.raises(InvalidSettingError, match=next(iter(setting))):
        OpenAICompatibleEmbeddingProvider(**(arguments | setting))


@pytest.mark.asyncio
async def test_a_single_string_is_refused_not_split_into_characters() -> None:
    provider = OpenAICompatibleEmbeddingProvider(base_url="http://x/v1", model="m", dimension=DIM)
    with pytest.raises(InvalidSettingError, match="not one string"):
        await provider.embed("Ada Lovelace")


def test_importing_redstring_does_not_import_the_sdk_or_the_runtime() -> None:
    code = (
        "import sys, redstring, redstring.llm.openai_compatible, redstring.llm.local_embedding\n"
        "print(sorted(m for m in ('openai', 'onnxruntime', 'tokenizers') if m in sys.modules))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert run.stdout.strip() == "[]"


# --- the language model ---------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "type": {"enum": ["PERSON", "ORG"]}},
                "required": ["name", "type"],
            },
        }
    },
    "required": ["entities"],
}
ANSWER = {"entities": [{"name": "Charles Babbage", "type": "PERSON"}]}


def llm(server: ScriptedServer, **overrides: Any) -> OpenAICompatibleLlmProvider:
    settings: dict[str, Any] = {
        "base_url": server.base_url,
        "model": "scripted-chat",
        "timeout": 5.0,
        **FAST,
    }
    settings.update(overrides)
    return OpenAICompatibleLlmProvider(**settings)


def recording_waits(provider: Any) -> list[float]:
    """The seconds `provider` waits between attempts, recorded instead of slept."""
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    provider._transport.sleep = record
    return waits


async def ask(server: ScriptedServer, **overrides: Any) -> dict[str, Any]:
    return await llm(server, **overrides).complete_json(
        system="Extract entities.", user="Babbage designed an engine.", schema=SCHEMA
    )


def answering(reply: Reply) -> Any:
    def script(path: str, request: dict[str, Any], number: int) -> Reply:
        return reply

    return script


@pytest.mark.asyncio
async def test_structured_output_sends_the_schema_and_returns_the_answer() -> None:
    with serve(answering(chat(json.dumps(ANSWER)))) as server:
        assert await ask(server) == ANSWER
        [request] = server.calls("/chat/completions")
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["schema"] == SCHEMA
    assert [m["role"] for m in request["messages"]] == ["system", "user"]


@pytest.mark.asyncio
async def test_without_structured_output_the_schema_goes_in_the_prompt() -> None:
    fenced = f"Here you are:\n```json\n{json.dumps(ANSWER)}\n```"
    with serve(answering(chat(fenced))) as server:
        assert await ask(server, structured_output="text") == ANSWER
        [request] = server.calls("/chat/completions")
    assert "response_format" not in request
    assert json.dumps(SCHEMA) in request["messages"][0]["content"]


@pytest.mark.asyncio
async def test_a_server_refusing_every_format_is_asked_each_once_and_then_not_again() -> None:
    reply = error(400, "unknown field: response_format")
    with serve(answering(reply)) as server:
        provider = llm(server)
        for _ in range(2):
            with pytest.raises(ModelServerError, match="refused every answer format") as raised:
                await provider.complete_json(system="s", user="u", schema=SCHEMA)
        formats = [
            r.get("response_format", {}).get("type") for r in server.calls("/chat/completions")
        ]
    assert formats == ["json_schema", "json_object", None]
    assert raised.value.status == 400
    assert provider.answer_format is None


@pytest.mark.asyncio
async def test_a_named_format_the_server_refuses_says_to_let_redstring_choose() -> None:
    with serve(answering(error(500, "grammar error"))) as server:
        with pytest.raises(ModelServerError, match="structured_output='auto'") as raised:
            await ask(server, structured_output="json_schema")
        assert len(server.requests) == 1  # a refused shape is not retried as transient
    assert raised.value.status == 500


@pytest.mark.asyncio
async def test_a_refusal_raises_refused() -> None:
    with (
        serve(answering(chat(None, refusal="I can't help with that."))) as server,
        pytest.raises(RefusedCompletionError, match="can't help") as raised,
    ):
        await ask(server)
    assert raised.value.model == "scripted-chat"


@pytest.mark.asyncio
async def test_a_content_filter_stop_raises_refused() -> None:
    with (
        serve(answering(chat("", finish_reason="content_filter"))) as server,
        pytest.raises(RefusedCompletionError, match="content filter"),
    ):
        await ask(server)


@pytest.mark.asyncio
@pytest.mark.parametrize("content", [None, "", "  \n"])
async def test_no_text_raises_empty(content: str | None) -> None:
    with (
        serve(answering(chat(content))) as server,
        pytest.raises(EmptyCompletionError, match="scripted-chat"),
    ):
        await ask(server)


@pytest.mark.asyncio
async def test_no_choices_raises_empty() -> None:
    reply = chat("{}")
    reply.body["choices"] = []
    with serve(answering(reply)) as server, pytest.raises(EmptyCompletionError, match="no choices"):
        await ask(server)


@pytest.mark.asyncio
async def test_text_that_is_not_json_raises_malformed() -> None:
    with (
        serve(answering(chat("Babbage was a PERSON."))) as server,
        pytest.raises(MalformedCompletionError, match="not JSON"),
    ):
        await ask(server)


@pytest.mark.asyncio
async def test_json_that_breaks_the_schema_raises_malformed() -> None:
    wrong = {"entities": [{"name": "Charles Babbage", "type": "PLANET"}]}
    with (
        serve(answering(chat(json.dumps(wrong)))) as server,
        pytest.raises(MalformedCompletionError, match=r"entities/0/type"),
    ):
        await ask(server)


@pytest.mark.asyncio
async def test_the_language_model_shares_the_retry_policy() -> None:
    def busy_then_fine(path: str, request: dict[str, Any], number: int) -> Reply:
        return error(503, "loading model") if number < 3 else chat(json.dumps(ANSWER))

    with serve(busy_then_fine) as server:
        provider = llm(server, initial_backoff=0.1, max_backoff=1.0)
        waits = recording_waits(provider)
        assert (
            await provider.complete_json(
                system="Extract entities.", user="Babbage designed an engine.", schema=SCHEMA
            )
            == ANSWER
        )
        assert len(server.requests) == 3
    # equal jitter: half the cap plus up to the other half, the cap doubling from 0.1 s
    assert len(waits) == 2
    assert 0.05 <= waits[0] <= 0.1
    assert 0.1 <= waits[1] <= 0.2


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply(status=401, body={"error": {"message": "bad key"}}), "bad key.*Check `api_key`"),
        (Reply(status=404, body={"error": "no such model"}), "no such model.*Check `model`"),
        (Reply(status=422, body={"object": "error", "message": "vLLM says no"}), "vLLM says no"),
        (Reply(status=409, body={"detail": ["odd"]}), r'\{"detail": \["odd"\]\}'),
        (Reply(status=413, body=b"request entity too large"), "request entity too large"),
    ],
)
async def test_the_servers_own_words_reach_the_error(reply: Reply, expected: str) -> None:
    with serve(answering(reply)) as server, pytest.raises(ModelServerError, match=expected):
        await embedder(server).embed(["Ada"])


@pytest.mark.asyncio
async def test_an_unreadable_retry_after_falls_back_to_backoff() -> None:
    def limited_once(path: str, request: dict[str, Any], number: int) -> Reply:
        if number == 1:
            return error(429, "slow down", **{"retry-after": "soon"})
        return embeddings(request, DIM)

    with serve(limited_once) as server:
        [vector] = await embedder(server).embed(["Ada"])
        assert len(server.requests) == 2
    assert vector == pytest.approx(vector_for("Ada", DIM))


@pytest.mark.asyncio
async def test_a_retry_after_header_lengthens_the_wait() -> None:
    def limited_once(path: str, request: dict[str, Any], number: int) -> Reply:
        if number == 1:
            return error(429, "slow down", **{"retry-after": "0.3"})
        return embeddings(request, DIM)

    with serve(limited_once) as server:
        provider = embedder(server, initial_backoff=0.01, max_backoff=1.0)
        waits = recording_waits(provider)
        await provider.embed(["Ada"])
    assert waits == [0.3]
