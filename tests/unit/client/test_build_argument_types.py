"""`build`'s numeric arguments are refused by type, naming the argument, before any server.

A `str` or a `bool` given for `max_failed_share` or `pair_questions` is a
mistake the range check alone let through as a `TypeError` from a comparison;
and a bad argument is refused before the model server is contacted, so an
unreachable server never hides it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from redstring import Redstring
from redstring.composition.build_graph import build_graph
from redstring.composition.build_policy import check_build_arguments, check_build_model
from redstring.errors import InvalidArgumentError, UnknownDomainError
from redstring.extraction.domains import AUTO, DomainSchema
from redstring.extraction.extractor import Extractor
from redstring.providers import FakeLlmProvider
from redstring.stores import InMemoryGraphStore
from tests.factories import DEFAULT_TENANT
from tests.unit.adapters.openai_protocol_server import Reply, ScriptedServer, error, serve

DOCS = Path(__file__).resolve().parents[3] / "src" / "redstring" / "sample_docs"
_NO_SERVER = "http://127.0.0.1:1/v1"  # port 1: refused at once

BAD = [
    ("max_failed_share", "0.5"),
    ("max_failed_share", True),
    ("max_failed_share", None),
    ("max_failed_share", 2),
    ("max_failed_share", float("nan")),
    ("pair_questions", "2"),
    ("pair_questions", True),
    ("pair_questions", 1.5),
    ("pair_questions", -1),
]


def _any(path: str, request: dict[str, Any], number: int) -> Reply:
    return error(500, "no request should reach the server")


def _calls(server: ScriptedServer) -> int:
    return len(server.requests)


@pytest.mark.parametrize(("name", "value"), BAD)
def test_a_bad_value_is_refused_naming_the_argument_before_the_server_is_asked(
    tmp_path: Path, name: str, value: object
) -> None:
    with serve(_any) as server, Redstring(tmp_path / "g.db", embeddings="none") as rs:
        with pytest.raises(InvalidArgumentError) as refused:
            rs.build(DOCS, model="m", base_url=server.base_url, **{name: value})
        assert _calls(server) == 0
    assert refused.value.name == name
    assert f"{name}={value!r} is not allowed" in str(refused.value)
    assert not (tmp_path / "g.db").exists()


@pytest.mark.parametrize(("name", "value"), BAD)
def test_a_bad_value_is_refused_before_an_unreachable_server_is_reported(
    tmp_path: Path, name: str, value: object
) -> None:
    with (
        Redstring(tmp_path / "g.db", embeddings="none") as rs,
        pytest.raises(InvalidArgumentError, match=name),
    ):
        rs.build(DOCS, model="m", base_url=_NO_SERVER, **{name: value})


def test_an_unknown_domain_name_is_refused_before_the_server_is_asked(tmp_path: Path) -> None:
    with serve(_any) as server, Redstring(tmp_path / "g.db", embeddings="none") as rs:
        with pytest.raises(UnknownDomainError, match="bogus"):
            rs.build(DOCS, model="m", base_url=server.base_url, domain="bogus")
        assert _calls(server) == 0


@pytest.mark.parametrize(("name", "value"), BAD)
def test_build_graph_refuses_a_bad_value_before_any_model_call(name: str, value: object) -> None:
    model = FakeLlmProvider([])
    graph = InMemoryGraphStore()
    arguments: dict[str, Any] = {name: value}
    with pytest.raises(InvalidArgumentError) as refused:
        asyncio.run(
            build_graph([], provider=model, graph=graph, tenant_id=DEFAULT_TENANT, **arguments)
        )
    assert refused.value.name == name
    assert model.calls == []


@pytest.mark.parametrize("value", ["2", True, 1.5, -1])
def test_the_extractor_refuses_a_pair_questions_that_is_not_a_count(value: object) -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        Extractor(FakeLlmProvider([]), pair_questions=value)  # type: ignore[arg-type]
    assert refused.value.name == "pair_questions"


@pytest.mark.parametrize(("share", "pairs"), [(0, 0), (1, 3), (0.25, 1)])
def test_whole_and_fractional_values_in_range_are_taken(share: float, pairs: int) -> None:
    asyncio.run(
        build_graph(
            [],
            provider=FakeLlmProvider([]),
            graph=InMemoryGraphStore(),
            tenant_id=DEFAULT_TENANT,
            max_failed_share=share,
            pair_questions=pairs,
        )
    )


def test_a_domain_that_is_no_name_nor_schema_is_refused_naming_it() -> None:
    with pytest.raises(InvalidArgumentError, match="DomainSchema") as refused:
        check_build_arguments(max_failed_share=0.5, pair_questions=0, domain=5)
    assert refused.value.name == "domain"


def test_a_model_name_without_base_url_is_refused_naming_it() -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        check_build_model("m", None)
    assert refused.value.name == "base_url"
    with pytest.raises(InvalidArgumentError) as wrong:
        check_build_model(5, "http://localhost:8000/v1")
    assert wrong.value.name == "model"
    check_build_model(FakeLlmProvider([]), None)  # a provider needs no URL


@pytest.mark.parametrize(
    "domain",
    [
        AUTO,
        "general",
        DomainSchema(
            name="lab", description="Lab notes.", entity_types=("sample",),
            relationship_types=("taken_from",),
        ),
    ],
)  # fmt: skip
def test_the_automatic_domain_a_bundled_name_and_a_schema_pass(domain: object) -> None:
    check_build_arguments(max_failed_share=0.5, pair_questions=0, domain=domain)
