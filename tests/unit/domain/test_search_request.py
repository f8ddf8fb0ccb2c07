"""`SearchRequest`: one search checked once where it enters, trusted below."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from redstring import AsyncRedstring, SourceDocument, TenantId
from redstring.client import queries
from redstring.domain import retrieval, validation
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.retrieval import RetrievalMode
from redstring.domain.search_request import SearchRequest
from redstring.providers import FakeEmbeddingProvider

TENANT = TenantId(UUID("11111111-1111-4111-8111-111111111111"))


def test_of_checks_every_argument_and_normalises_the_query_once() -> None:
    request = SearchRequest.of(
        "  Ada LOVELACE ", TENANT, k=3, mode=RetrievalMode.HYBRID, only=["person"],
        min_confidence=0.5,
    )  # fmt: skip
    assert (request.text, request.query.tokens) == ("  Ada LOVELACE ", ("ada", "lovelace"))
    assert (request.tenant_id, request.k, request.only, request.min_confidence) == (
        TENANT, 3, ("person",), 0.5,
    )  # fmt: skip
    for bad, name in (
        ({"query": " "}, "query"),
        ({"k": -1}, "k"),
        ({"tenant_id": str(TENANT)}, "tenant_id"),
        ({"only": "person"}, "types"),
        ({"min_confidence": 2.0}, "min_confidence"),
    ):
        arguments: dict[str, Any] = {"query": "Ada", "tenant_id": TENANT, "k": 3, "only": None}
        arguments.update(bad)
        with pytest.raises(InvalidArgumentError) as caught:
            SearchRequest.of(
                arguments.pop("query"), arguments.pop("tenant_id"), mode=RetrievalMode.LEXICAL,
                only_name="types", **arguments,
            )  # fmt: skip
        assert caught.value.name == name


def _counting(monkeypatch: pytest.MonkeyPatch, function: Callable[..., Any]) -> list[str]:
    """Count every call of `function` through any module of redstring that imported it."""
    calls: list[str] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(function.__name__)
        return function(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("redstring") and (
            getattr(module, function.__name__, None) is function
        ):
            monkeypatch.setattr(module, function.__name__, counted)
    return calls


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", [None, "hybrid", "lexical"])
async def test_one_search_checks_its_query_once_and_resolves_its_mode_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str | None
) -> None:
    embeddings = FakeEmbeddingProvider(dimension=16)
    async with AsyncRedstring(tmp_path / "x.db", embeddings=embeddings) as rs:
        await rs.index(SourceDocument(id="a.md", text="Ada Lovelace wrote the first program."))
        query_checks = _counting(monkeypatch, validation.require_query)
        mode_checks = _counting(monkeypatch, retrieval.resolve_mode)
        mode_checks_above = _counting(monkeypatch, queries.resolve_mode)
        assert (await rs.passages("first program", mode=mode)).matches
        assert (len(query_checks), len(mode_checks) + len(mode_checks_above)) == (1, 1)
        query_checks.clear(), mode_checks.clear(), mode_checks_above.clear()
        await rs.search("Ada", mode=mode)
        assert (len(query_checks), len(mode_checks) + len(mode_checks_above)) == (1, 1)
