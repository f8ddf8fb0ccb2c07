"""The client's argument guards: each wrong argument is named before any store opens."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from redstring import AsyncRedstring, Redstring, SourceDocument
from redstring.client.embeddings import local_extra_installed, resolve_embeddings
from redstring.errors import (
    ClientClosedError,
    DocumentPathError,
    InvalidArgumentError,
    ReadOnlyDatabaseError,
)
from redstring.llm.local_embedding import LocalEmbeddingProvider
from redstring.providers import FakeLlmProvider
from redstring.stores import StoreSet

_NO_SERVER = "http://127.0.0.1:1/v1"  # port 1: refused at once


@pytest.mark.parametrize("tenant", [5, b"acme", 1.5])
def test_a_tenant_that_is_neither_a_name_nor_a_uuid_is_named(tmp_path: Path, tenant: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="a tenant name, a UUID, or None"):
        Redstring(tmp_path / "g.db", tenant=tenant, embeddings="none")
    assert not (tmp_path / "g.db").exists()


@pytest.mark.parametrize("tenant", ["", "   "])
def test_a_blank_tenant_name_is_named(tmp_path: Path, tenant: str) -> None:
    with pytest.raises(InvalidArgumentError, match="a non-blank tenant name or a UUID"):
        AsyncRedstring(tmp_path / "g.db", tenant=tenant, embeddings="none")


@pytest.mark.parametrize("db", ["", "  ", 5, None])
def test_a_db_that_is_neither_a_path_nor_a_url_is_named(db: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="a SQLite file path or a postgresql:// URL"):
        AsyncRedstring(db, embeddings="none")


def test_both_clients_report_the_db_they_were_given_as_text(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    with Redstring(path, embeddings="none") as rs:
        assert rs.db == str(path)
    assert AsyncRedstring(path, embeddings="none").db == str(path)


def test_a_model_name_without_a_base_url_is_named(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Ada Lovelace met Charles Babbage.", encoding="utf-8")
    with (
        Redstring(tmp_path / "g.db", embeddings="none") as rs,
        pytest.raises(InvalidArgumentError, match="base_url"),
    ):
        rs.build(tmp_path / "a.txt", model="m")


def test_a_closed_client_refuses_a_build_after_logging_the_files_it_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "bad.txt").write_bytes(b"\xff\xfe\x00not utf-8 \xc3\x28")

    async def scenario() -> None:
        client = AsyncRedstring(tmp_path / "g.db", embeddings="none")
        await client.close()
        with (
            caplog.at_level(logging.WARNING, logger="redstring"),
            pytest.raises(ClientClosedError, match=r"build\(\)"),
        ):
            # refused before the preflight, which would find no server here
            await client.build(tmp_path / "docs", model="m", base_url=_NO_SERVER)

    asyncio.run(scenario())
    assert any("skipped docs/bad.txt" in record.getMessage() for record in caplog.records)


def test_an_item_that_is_neither_a_path_nor_a_document_is_named(tmp_path: Path) -> None:
    with Redstring(tmp_path / "g.db", embeddings="none") as rs:
        with pytest.raises(InvalidArgumentError, match="file or folder paths, or SourceDocument"):
            rs.index([5])  # type: ignore[list-item]
        with pytest.raises(InvalidArgumentError, match="at least one path or document"):
            rs.index([])


@pytest.mark.parametrize("documents", [5, None, 1.5, b"docs", {"id": "a.md"}])
def test_documents_that_are_no_path_document_or_list_are_named(
    tmp_path: Path, documents: Any
) -> None:
    """`list(5)` raised a raw `TypeError` in both clients, and `index` and `build` alike."""
    with Redstring(tmp_path / "g.db", embeddings="none") as rs:
        for call in (rs.index, lambda given: rs.build(given, model="m", base_url=_NO_SERVER)):
            with pytest.raises(InvalidArgumentError, match="a SourceDocument, or a list") as raised:
                call(documents)
            assert raised.value.name == "documents"

    async def scenario() -> None:
        async with AsyncRedstring(tmp_path / "g.db", embeddings="none") as rs:
            with pytest.raises(InvalidArgumentError, match="a SourceDocument, or a list"):
                await rs.index(documents)

    asyncio.run(scenario())


def test_a_root_that_is_no_folder_names_root_not_the_flag(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Ada.", encoding="utf-8")
    with Redstring(tmp_path / "g.db", embeddings="none") as rs:
        with pytest.raises(DocumentPathError, match="`root` is not a folder") as raised:
            rs.index(tmp_path / "a.md", root=tmp_path / "a.md")
        assert "--root" not in str(raised.value)
        (tmp_path / "sub").mkdir()
        with pytest.raises(DocumentPathError, match="not under `root`"):
            rs.index(tmp_path / "a.md", root=tmp_path / "sub")
        with pytest.raises(InvalidArgumentError, match="a folder's path") as named:
            rs.index(tmp_path / "a.md", root=5)  # type: ignore[arg-type]
        assert named.value.name == "root"


@pytest.mark.skipif(not local_extra_installed(), reason="needs the local extra")
def test_embeddings_local_is_the_local_model_on_the_threads_asked_for() -> None:
    for threads in (1, 7):  # at most one of them can be the machine's default
        provider = resolve_embeddings("local", threads=threads)  # lazy: loads no model
        assert isinstance(provider, LocalEmbeddingProvider)
        assert provider.threads == threads


class _SyncEmbed:
    """Shaped like a provider but for an `embed` that is not a coroutine function."""

    dimension = 8

    def embed(self, texts: Any) -> list[list[float]]:
        return [[0.0] * 8 for _ in texts]

    async def embed_query(self, texts: Any) -> list[list[float]]:
        return [[0.0] * 8 for _ in texts]


class _TextDimension:
    """An async provider whose `dimension` is not a whole number."""

    dimension = "384"

    async def embed(self, texts: Any) -> list[list[float]]:
        return []

    async def embed_query(self, texts: Any) -> list[list[float]]:
        return []


@pytest.mark.parametrize(
    "embeddings",
    [5, True, object(), ["local"], _SyncEmbed(), _TextDimension()],
    ids=["int", "bool", "object", "list", "sync-embed", "text-dimension"],
)
def test_an_embeddings_value_that_is_no_provider_is_named_at_construction(
    tmp_path: Path, embeddings: Any
) -> None:
    for client in (Redstring, AsyncRedstring):
        with pytest.raises(InvalidArgumentError, match="an EmbeddingProvider instance") as named:
            client(tmp_path / "g.db", embeddings=embeddings)
        assert named.value.name == "embeddings"
        assert '"local", "multilingual", "none"' in str(named.value)
    assert not (tmp_path / "g.db").exists()


def test_a_provider_class_rather_than_an_instance_is_told_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match=r"LocalEmbeddingProvider\(\)") as named:
        Redstring(tmp_path / "g.db", embeddings=LocalEmbeddingProvider)  # type: ignore[arg-type]
    assert named.value.name == "embeddings"
    assert "instance" in str(named.value)
    assert not (tmp_path / "g.db").exists()


def test_a_progress_that_is_not_callable_is_named_before_anything_is_written(
    tmp_path: Path,
) -> None:
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        with pytest.raises(
            InvalidArgumentError, match=r"progress\(chunks_done, chunks_total\)"
        ) as raised:
            rs.index([SourceDocument(id="a.md", text="Ada wrote the notes.")], progress=5)  # type: ignore[arg-type]
        assert raised.value.name == "progress"
        assert all(tenant.chunks == 0 for tenant in rs.stats().tenants)
        with pytest.raises(InvalidArgumentError, match="ExtractionProgress") as raised:
            rs.build(
                [SourceDocument(id="a.md", text="Ada wrote the notes.")],
                model=FakeLlmProvider(),
                progress="yes",  # type: ignore[arg-type]
            )
        assert raised.value.name == "progress"
        with pytest.raises(InvalidArgumentError, match="LlmProvider") as raised:
            rs.build([SourceDocument(id="a.md", text="Ada.")], model=5)  # type: ignore[arg-type]
        assert raised.value.name == "model"


def test_an_opener_of_another_signature_is_named_with_the_one_it_needs(tmp_path: Path) -> None:
    """The opener the use-SQLite page once showed: no `language`, which the client passes."""

    @asynccontextmanager
    async def without_language(
        db: str, *, dimension: int | None, create: bool, migrate: bool
    ) -> AsyncIterator[StoreSet]:
        raise AssertionError("never opened")
        yield

    for opener in (without_language, "graph.db"):
        with pytest.raises(InvalidArgumentError, match=r"opener\(db, \*, dimension") as raised:
            Redstring(tmp_path / "x.db", embeddings="none", opener=opener)  # type: ignore[arg-type]
        assert raised.value.name == "opener"


def test_an_opener_whose_signature_cannot_be_read_is_taken_as_given(tmp_path: Path) -> None:
    """A callable `inspect` cannot read (a class implemented in C) is not refused for its
    signature: it is called when the client opens its stores, and what it raises is its own."""
    with pytest.raises(TypeError, match=r"int\(\) takes"):
        Redstring(tmp_path / "x.db", embeddings="none", opener=int)  # type: ignore[arg-type]


@pytest.mark.parametrize("codec", ["rot13", "base64", "hex", "zlib"])
def test_a_codec_that_is_no_text_encoding_is_refused_as_an_unknown_one(
    tmp_path: Path, codec: str
) -> None:
    """`codecs.lookup` knows these, but they turn bytes into bytes: decoding a file with
    one is a bare `LookupError`, so they are refused like an encoding Python lacks."""
    (tmp_path / "a.md").write_text("Ada.", encoding="utf-8")
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        for encoding in (codec, "bogus"):
            with pytest.raises(InvalidArgumentError, match="a text encoding") as raised:
                rs.index(tmp_path / "a.md", encoding=encoding)
            assert raised.value.name == "encoding"
        assert all(tenant.chunks == 0 for tenant in rs.stats().tenants)


@pytest.mark.parametrize("argument", ["migrate", "create"])
@pytest.mark.parametrize("value", ["yes", "no", 1, 0, None])
def test_a_client_flag_that_is_no_bool_is_named(tmp_path: Path, argument: str, value: Any) -> None:
    for client in (AsyncRedstring, Redstring):
        with pytest.raises(InvalidArgumentError, match=f"{argument}=") as raised:
            client(tmp_path / "x.db", embeddings="none", **{argument: value})
        assert raised.value.name == argument
    assert not (tmp_path / "x.db").exists()


def test_keep_missing_and_force_that_are_no_bool_are_named_before_anything_changes(
    tmp_path: Path,
) -> None:
    """`keep_missing="no"` is truthy: taken as it is, it would keep the files it says to drop."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("Ada wrote the notes.", encoding="utf-8")
    (folder / "b.md").write_text("Babbage built the engine.", encoding="utf-8")
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(folder)
        (folder / "b.md").unlink()
        for value in ("no", 0, None):
            with pytest.raises(InvalidArgumentError, match="keep_missing=") as raised:
                rs.index(folder, keep_missing=value)  # type: ignore[arg-type]
            assert raised.value.name == "keep_missing"
        assert rs.passages("Babbage", k=1).matches  # nothing was removed
        with pytest.raises(InvalidArgumentError, match="force=") as raised:
            rs.rekey(force="yes")  # type: ignore[arg-type]
        assert raised.value.name == "force"
        assert rs.index(folder, keep_missing=False).removed == ["docs/b.md"]


@pytest.mark.asyncio
async def test_the_async_client_names_keep_missing_that_is_no_bool(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Ada.", encoding="utf-8")
    async with AsyncRedstring(tmp_path / "x.db", embeddings="none") as rs:
        with pytest.raises(InvalidArgumentError, match="keep_missing=") as raised:
            await rs.index(tmp_path / "a.md", keep_missing="no")  # type: ignore[arg-type]
        assert raised.value.name == "keep_missing"


def test_a_progress_that_cannot_take_its_arguments_is_named_before_anything_is_written(
    tmp_path: Path,
) -> None:
    def takes_one(done: int) -> None:
        raise AssertionError("never called")

    document = SourceDocument(id="a.md", text="Ada wrote the notes.")
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        for progress in (lambda: None, takes_one, lambda a, b, c: None):
            with pytest.raises(
                InvalidArgumentError, match=r"progress\(chunks_done, chunks_total\)"
            ) as raised:
                rs.index([document], progress=progress)  # type: ignore[arg-type]
            assert raised.value.name == "progress"
        assert all(tenant.chunks == 0 for tenant in rs.stats().tenants)
        with pytest.raises(InvalidArgumentError, match="ExtractionProgress") as raised:
            rs.build([document], model=FakeLlmProvider(), progress=lambda: None)  # type: ignore[arg-type]
        assert raised.value.name == "progress"
        seen: list[tuple[int, int]] = []
        rs.index([document], progress=lambda *counts: seen.append(counts))  # type: ignore[arg-type]
        assert seen[-1][0] == seen[-1][1]


def test_a_read_only_clients_write_names_what_the_caller_can_change(tmp_path: Path) -> None:
    """The client takes `create`, not `read_only`: the message names it."""
    (tmp_path / "a.md").write_text("Ada.", encoding="utf-8")
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        rs.index(tmp_path / "a.md")
    (tmp_path / "a.md").write_text("Ada wrote the notes.", encoding="utf-8")
    with (
        Redstring(tmp_path / "x.db", embeddings="none", create=False) as rs,
        pytest.raises(ReadOnlyDatabaseError, match="create=False") as raised,
    ):
        rs.index(tmp_path / "a.md")
    assert "a client made without create=False" in str(raised.value)
