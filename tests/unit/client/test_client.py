"""The one client object, sync and async, as a Python user drives it (ADR 0160)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import sys
from pathlib import Path

import pytest

from redstring import (
    AsyncRedstring,
    Redstring,
    RedstringError,
    SourceDocument,
    StoredChunk,
    tenant_id_for,
)
from redstring.client.embeddings import local_extra_installed
from redstring.domain.errors import ModeNeedsEmbeddingsError
from redstring.errors import ClientClosedError, PandasMissingError
from redstring.providers import FakeEmbeddingProvider

REPOSITORY = Path(__file__).resolve().parents[3]

QUICK_START = """\
from redstring import Redstring, sample_docs
with Redstring("demo.db") as rs:
    rs.index(sample_docs())
    print(rs.passages("the first computer program"))
"""

ADA = SourceDocument(id="a.md", text="Ada Lovelace wrote the first program for the engine.")
SECRET = SourceDocument(id="b.md", text="SECRET Ada program notes kept by another tenant.")


def test_the_quick_start_prints_hybrid_passages_in_at_most_eight_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not local_extra_installed():
        pytest.skip("the quick start's HYBRID default needs the `local` extra")
    assert len(QUICK_START.strip().splitlines()) <= 8
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(QUICK_START, "quick_start", "exec"), {})
    text = out.getvalue()
    assert text.startswith("5 passages for 'the first computer program' (hybrid)\n")
    first = text.splitlines()[1]
    assert first.startswith("1. ")
    assert first.endswith("sample_docs/ada_lovelace.md #0")  # what the README says comes first
    assert (tmp_path / "demo.db").exists()


def test_the_sync_client_indexes_searches_and_converts(tmp_path: Path) -> None:
    with Redstring(tmp_path / "x.db", embeddings=FakeEmbeddingProvider(dimension=16)) as rs:
        report = rs.index([ADA])
        assert report.documents == 1
        answer = rs.passages("first program", k=3)
        assert answer.mode.value == "hybrid"
        [row] = answer.to_dicts()
        assert row["source_id"] == "a.md"
        assert row["rank"] == 1
        assert rs.tenant_id == tenant_id_for("default")
        frame = answer.to_pandas()
        assert list(frame["source_id"]) == ["a.md"]
        assert rs.search("Ada").matches == []  # nothing built yet
        [tenant] = rs.stats().to_dicts()
        assert tenant["chunks"] == 1


def test_the_async_client_answers_as_the_sync_one(tmp_path: Path) -> None:
    async def scenario() -> list[dict[str, object]]:
        async with AsyncRedstring(tmp_path / "x.db", embeddings="none") as rs:
            await rs.index(ADA)
            answer = await rs.passages("first program")
            assert answer.mode.value == "lexical"  # no provider: lexical by default
            with pytest.raises(ModeNeedsEmbeddingsError, match='embeddings="local"'):
                await rs.passages("first program", mode="hybrid")
            return answer.to_dicts()

    rows = asyncio.run(scenario())
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        assert rs.passages("first program").to_dicts() == rows


def test_tenants_never_cross_even_under_the_same_chunk_ids(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    with Redstring(db, tenant="other", embeddings="none") as rs:
        rs.index([ADA, SECRET])  # ADA's chunk has the same id in both tenants
    with Redstring(db, tenant="home", embeddings="none") as rs:
        rs.index([ADA])
        answer = rs.passages("Ada program", k=10)
        assert [hit["source_id"] for hit in answer.to_dicts()] == ["a.md"]
        assert "SECRET" not in str(answer)
        counts = {row["tenant_id"]: row["chunks"] for row in rs.stats().to_dicts()}
    assert counts[str(tenant_id_for("home"))] == 1


def test_a_closed_client_says_so(tmp_path: Path) -> None:
    rs = Redstring(tmp_path / "x.db", embeddings="none")
    rs.close()
    rs.close()  # harmless
    with pytest.raises(ClientClosedError, match=r"passages\(\) was called on a closed"):
        rs.passages("anything")

    async def scenario() -> None:
        client = AsyncRedstring(tmp_path / "x.db", embeddings="none")
        await client.close()
        with pytest.raises(ClientClosedError, match=r"search\(\)"):
            await client.search("anything")

    asyncio.run(scenario())
    assert issubclass(ClientClosedError, RedstringError)


def test_results_and_clients_print_without_embeddings(tmp_path: Path) -> None:
    embeddings = FakeEmbeddingProvider(dimension=16)
    with Redstring(tmp_path / "x.db", embeddings=embeddings) as rs:
        rs.index([ADA])
        answer = rs.passages("first program")
        assert repr(rs).startswith(f"<Redstring {str(tmp_path / 'x.db')!r} tenant=")
    printed = str(answer)
    assert printed.splitlines()[0] == "1 passage for 'first program' (hybrid)"
    assert repr(answer) == printed
    assert len(printed) < 400
    chunk = StoredChunk(
        tenant_id=tenant_id_for("t"),
        source_id="a.md",
        text="Ada",
        index=0,
        start=0,
        end=3,
        embedding=[0.123456789] * 384,
    )
    assert "0.123456789" not in repr(chunk)
    assert "0.123456789" not in str(chunk)


def test_to_pandas_without_pandas_names_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Redstring(tmp_path / "x.db", embeddings="none") as rs:
        answer = rs.stats()
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(PandasMissingError, match=r"pip install pandas\), or use to_dicts"):
        answer.to_pandas()


def test_an_unknown_embeddings_choice_names_the_argument(tmp_path: Path) -> None:
    with pytest.raises(RedstringError, match="embeddings='locla' is not allowed"):
        Redstring(tmp_path / "x.db", embeddings="locla")  # type: ignore[arg-type]
    assert not (tmp_path / "x.db").exists()
