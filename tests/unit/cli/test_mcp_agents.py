"""The MCP server under agent frameworks nobody here wrote: pydantic-ai and LangChain.

pydantic-ai's `TestModel` calls every tool with arguments it draws from the
tool's schema (enums, bounds, `examples`; a seed varies the draw), through
its `MCPToolset` over stdio. langchain-mcp-adapters loads the tools from one
`client.session()` and calls them (`langchain_probe.py`, in an environment of
its own). The server is the in-memory world (`mcp_fixture_server`), with the
fake embedding provider.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import RetryPromptPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.test import TestModel

from redstring import Redstring
from redstring.client.embeddings import local_extra_installed
from tests.hang_guard import HANG_GUARD_SECONDS
from tests.unit.cli.mcp_client import ROOT
from tests.unit.cli.world import ADA

SERVER = ["-m", "tests.unit.cli.mcp_fixture_server"]
TOOLS = {"describe_tenant", "search_entities", "get_entity", "search_passages", "read_passage"}
#: The tools whose every schema-valid call must succeed: no argument names a stored thing.
SEARCHES = ["describe_tenant", "search_entities", "search_passages"]
SEEDS = range(5)
PROBE = Path(__file__).with_name("langchain_probe.py")
#: The client's environment, pinned: the adapters and the 1.x SDK they import.
LANGCHAIN = ["--with", "langchain-mcp-adapters==0.3.2", "--with", "mcp>=1.24,<2"]


def _toolset(*, errors: str = "retry") -> MCPToolset[Any]:
    transport = StdioTransport(
        command=sys.executable, args=SERVER, env=dict(os.environ), cwd=str(ROOT)
    )
    # pydantic-ai waits 5 s for the handshake by default: a busy machine starts the server slower.
    return MCPToolset(
        transport,
        tool_error_behavior=errors,  # type: ignore[arg-type]
        init_timeout=HANG_GUARD_SECONDS,
    )


def _parts(result: Any) -> list[Any]:
    return [part for message in result.all_messages() for part in message.parts]


@pytest.mark.asyncio
async def test_test_model_calls_every_search_tool_and_each_succeeds_for_every_seed() -> None:
    toolset = _toolset()
    async with toolset:  # one server for every seed
        for seed in SEEDS:
            model = TestModel(seed=seed, call_tools=SEARCHES)
            result = await Agent(model, toolsets=[toolset]).run("Who wrote the first program?")
            parts = _parts(result)
            called = {part.tool_name for part in parts if isinstance(part, ToolCallPart)}
            returned = {part.tool_name for part in parts if isinstance(part, ToolReturnPart)}
            assert called == returned == set(SEARCHES), seed
            assert not any(isinstance(part, RetryPromptPart) for part in parts), seed


@pytest.mark.asyncio
async def test_test_model_over_all_tools_meets_only_refusals_of_ids_the_graph_lacks() -> None:
    toolset = _toolset(errors="failed")
    async with toolset:
        for seed in SEEDS:
            result = await Agent(TestModel(seed=seed), toolsets=[toolset]).run("Ada?")
            parts = _parts(result)
            called = {part.tool_name for part in parts if isinstance(part, ToolCallPart)}
            assert called == TOOLS, seed
            for part in parts:
                if isinstance(part, ToolReturnPart) and part.tool_name in SEARCHES:
                    assert isinstance(part.content, dict), (seed, part)
                    assert "Argument" not in str(part.content), (seed, part)
            # The example ids are well formed but name nothing stored: the one refusal a
            # schema cannot state, and it names the argument to change.
            failures = {
                part.tool_name: str(part.content)
                for part in parts
                if isinstance(part, ToolReturnPart | RetryPromptPart)
                and "Argument `" in str(part.content)
            }
            assert set(failures) <= {"get_entity", "read_passage"}, (seed, failures)
            for tool, text in failures.items():
                assert "Argument `entity_id` names no entity" in text or (
                    "Argument `passage_id`" in text
                ), (seed, tool, text)


def test_langchain_loads_the_tools_from_one_session_and_calls_them() -> None:
    # langchain-mcp-adapters 0.3 imports mcp 1.x modules that mcp 2 removed, so it runs in
    # an environment of its own (uv caches it); the server is this project's.
    uv = shutil.which("uv")
    assert uv is not None, "the langchain test runs its client with uv"
    done = subprocess.run(
        [uv, "run", "--no-project", *LANGCHAIN, "python", str(PROBE), sys.executable, str(ADA)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answers = json.loads(done.stdout.splitlines()[-1])
    assert set(answers["descriptions"]) == TOOLS
    assert all(len(text) > 150 for text in answers["descriptions"].values())
    assert "Ada Lovelace" in answers["found"]
    assert "Charles Babbage" in answers["detail"]
    assert "Argument `k` must be at most 50" in answers["refused"]


HOW_TO = ROOT / "docs" / "how-to" / "give-an-agent-entity-search.md"


def test_the_how_tos_pydantic_ai_snippet_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The snippet's own toolset and agent, with TestModel standing in for the paid model."""
    if not local_extra_installed():
        pytest.skip("the snippet's server embeds with the default, local, provider")
    [code] = [
        block
        for block in re.findall(r"```python\n(.*?)```", HOW_TO.read_text(), re.DOTALL)
        if "pydantic_ai" in block
    ]
    body, run = code.rstrip().rsplit("\n", 1)
    assert run == "asyncio.run(main())"
    monkeypatch.chdir(tmp_path)
    # pydantic-ai makes the OpenAI client when the agent is built; TestModel replaces it.
    monkeypatch.setenv("OPENAI_API_KEY", "not-used")
    with Redstring("demo.db") as rs:  # the database the snippet names, with passages
        rs.index(ROOT / "src" / "redstring" / "sample_docs")
    scope: dict[str, Any] = {"__name__": "__snippet__"}
    exec(compile(body, str(HOW_TO), "exec"), scope)
    model = TestModel(call_tools=["describe_tenant", "search_passages"])
    with scope["agent"].override(model=model):
        asyncio.run(scope["main"]())
    parameters = model.last_model_request_parameters
    assert parameters is not None
    # Indexed, not built: the server offers the passage tools and no entity tools.
    offered = {tool.name for tool in parameters.function_tools}
    assert offered == {"describe_tenant", "search_passages", "read_passage"}
    printed = capfd.readouterr().out
    assert "search_passages" in printed  # TestModel's answer quotes the tools' results
    assert "sample_docs/" in printed  # document ids are relative to the indexed folder's parent
