"""A filter value or an id holding a NUL is refused alike in every store, before any is touched.

PostgreSQL text cannot hold a NUL, so such a value reached its driver as a
`DataError` (an untyped `StoreOperationError`) where SQLite answered "no such
document" or an empty answer: the clients refuse it where it enters.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from redstring import AsyncRedstring, Redstring, SourceDocument
from redstring.client.store_set import StoreSet
from redstring.client.stores import open_store_set
from redstring.errors import InvalidArgumentError

_DOC = SourceDocument(id="ok.md", text="Ada Lovelace wrote the first program.")

#: Each call, and the argument its refusal names.
CALLS: list[tuple[str, Callable[[Any], Any], str]] = [
    ("passages", lambda rs: rs.passages("ada", sources=["ok.md", "a\x00b"]), "sources[1]"),
    ("search", lambda rs: rs.search("ada", types=["per\x00son"]), "types[0]"),
    ("remove", lambda rs: rs.remove("ok\x00.md"), "document_id"),
    ("passage", lambda rs: rs.passage("c:\x00"), "passage_id"),
]


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return ":memory:" if request.param == "memory" else str(tmp_path / "x.db")


@pytest.mark.parametrize(
    ("call", "argument"), [(c[1], c[2]) for c in CALLS], ids=[c[0] for c in CALLS]
)
def test_a_nul_in_a_filter_or_an_id_is_refused_by_the_blocking_client_in_every_store(
    db: str, call: Callable[[Any], Any], argument: str
) -> None:
    with Redstring(db, embeddings="none") as rs:
        rs.index(_DOC)
        with pytest.raises(InvalidArgumentError) as refused:
            call(rs)
        assert refused.value.name == argument
        assert "NUL" in str(refused.value)
        assert [hit.source_id for hit in rs.passages("ada", sources=["ok.md"]).matches] == ["ok.md"]


@pytest.mark.parametrize(
    ("call", "argument"), [(c[1], c[2]) for c in CALLS], ids=[c[0] for c in CALLS]
)
def test_a_nul_in_a_filter_or_an_id_is_refused_by_the_async_client_in_every_store(
    db: str, call: Callable[[Any], Any], argument: str
) -> None:
    async def scenario() -> InvalidArgumentError:
        async with AsyncRedstring(db, embeddings="none") as rs:
            await rs.index(_DOC)
            try:
                await call(rs)
            except InvalidArgumentError as refused:
                return refused
        raise AssertionError("the call was answered")

    refused = asyncio.run(scenario())
    assert refused.name == argument
    assert "NUL" in str(refused)


@pytest.mark.parametrize(
    ("call", "argument"), [(c[1], c[2]) for c in CALLS], ids=[c[0] for c in CALLS]
)
def test_the_refusal_comes_before_the_database_is_opened(
    tmp_path: Path, call: Callable[[Any], Any], argument: str
) -> None:
    opened: list[str] = []

    def counting_opener(
        db: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None = None
    ) -> AbstractAsyncContextManager[StoreSet]:
        opened.append(db)
        return open_store_set(
            db, dimension=dimension, create=create, migrate=migrate, language=language
        )

    async def scenario() -> InvalidArgumentError:
        rs = AsyncRedstring(tmp_path / "x.db", embeddings="none", opener=counting_opener)
        try:
            await call(rs)
        except InvalidArgumentError as refused:
            return refused
        finally:
            await rs.close()
        raise AssertionError("the call was answered")

    assert asyncio.run(scenario()).name == argument
    assert opened == []


def test_control_characters_other_than_nul_still_reach_an_id_stored_before_the_id_rule(
    tmp_path: Path,
) -> None:
    """Ids stored before document ids were held to no control character can be found
    and removed: only a NUL, which no PostgreSQL text holds, is refused in a lookup."""
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(_DOC)
        answer = rs.passages("ada", sources=["two\nlines.md"])
        assert answer.matches == []
        assert answer.hint is not None
        with pytest.raises(InvalidArgumentError, match="indexed in this tenant"):
            rs.remove("two\nlines.md")
