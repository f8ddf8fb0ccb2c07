"""What main() prints for failures nobody planned, and the build report's optional parts."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import io
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from uuid import uuid4

import pytest

from redstring import entity_id_for
from redstring.building import ChunkFailure, GraphBuildReport, MergeSummary
from redstring.cli.main import main
from redstring.cli.providers import llm_endpoint
from redstring.client import embeddings as providers
from redstring.client.answers import EntitySearchAnswer, print_entities
from redstring.client.documents import read_documents
from redstring.client.embeddings import local_extra_installed
from redstring.client.queries import resolve_mode
from redstring.client.render import print_build_report
from redstring.client.store_set import StoreSet
from redstring.client.stores import open_store_set
from redstring.client.tenants import DEFAULT_TENANT
from redstring.domain.errors import DimensionMismatchError, InvalidSettingError, MissingExtraError
from redstring.domain.ids import tenant_id_for
from redstring.domain.retrieval import RetrievalMode
from tests.unit.cli.mcp_fixture_server import opener_of
from tests.unit.cli.world import populated_stores


class Broken(Exception):
    pass


@asynccontextmanager
async def broken_opener(
    db: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None = None
) -> AsyncIterator[StoreSet]:
    raise Broken("the disk caught fire")
    yield  # pragma: no cover


@asynccontextmanager
async def silent_opener(
    db: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None = None
) -> AsyncIterator[StoreSet]:
    raise Broken()
    yield  # pragma: no cover


def run(*argv: str, opener: object = broken_opener) -> tuple[int, str]:
    err = io.StringIO()
    status = main(list(argv), env={}, opener=opener, stdout=io.StringIO(), stderr=err)  # type: ignore[arg-type]
    return status, err.getvalue()


def test_an_unexpected_exception_is_one_line_naming_its_type() -> None:
    status, err = run("stats", "--db", "x")
    assert status == 1
    assert err == (
        "redstring: unexpected Broken: the disk caught fire "
        "(run again with --traceback and report it)\n"
    )
    assert run("stats", "--db", "x", opener=silent_opener)[1].startswith(
        "redstring: unexpected Broken: Broken "
    )


def test_traceback_re_raises_both_kinds_of_failure() -> None:
    with pytest.raises(Broken):
        run("--traceback", "stats", "--db", "x")
    with pytest.raises(ValueError, match="query must not be blank"):
        run("--traceback", "search", " ", "--db", "x")


def test_an_unknown_mode_and_a_blank_tenant_name_are_refused() -> None:
    with pytest.raises(ValueError, match="mode must be one of semantic, lexical, hybrid"):
        resolve_mode("fuzzy", None)
    assert resolve_mode("lexical", None) is RetrievalMode.LEXICAL
    with pytest.raises(ValueError, match="tenant name must not be blank"):
        tenant_id_for(" ")


def test_an_answer_with_no_matches_prints_only_its_heading() -> None:
    out = io.StringIO()
    answer = EntitySearchAnswer(
        tenant_id=str(DEFAULT_TENANT), query="nobody", mode=RetrievalMode.LEXICAL, matches=[]
    )
    print_entities(answer, out)
    assert out.getvalue() == "0 entities for 'nobody' (lexical)\n"


def test_the_build_report_lists_merges_failures_and_a_domain_failure() -> None:
    survivor = entity_id_for(DEFAULT_TENANT, "organization", "ACME Corporation")
    report = GraphBuildReport(
        tenant_id=DEFAULT_TENANT,
        documents=2,
        entities_written=3,
        relationships_written=1,
        relationships_dropped=1,
        chunks_written=2,
        merges=[
            MergeSummary(
                event_id=uuid4(),
                survivor_id=survivor,
                survivor_name="ACME Corporation",
                merged_ids=[entity_id_for(DEFAULT_TENANT, "organization", "Acme Corp")],
                merged_names=["Acme Corp"],
                score=0.93,
            )
        ],
        failures=[
            ChunkFailure(
                document_id="b.md",
                chunk_index=1,
                error_type="MalformedCompletionError",
                cause="not JSON",
            )
        ],
        failure_causes={"MalformedCompletionError": 1},
        answer_format="json_object",
        domain="general",
        domain_chosen_by="fallback",
        domain_confidence=None,
        domain_failure="RefusedCompletionError: no",
        events_appended=4,
        first_sequence=1,
        last_sequence=4,
    )
    out = io.StringIO()
    print_build_report(report, out)
    text = out.getvalue()
    assert "  domain         general (chosen by fallback)\n" in text
    assert "  domain failure RefusedCompletionError: no\n" in text
    assert (
        "  relationships  1 (1 dropped: an end was not extracted, or both ends are one entity)\n"
        in text
    )
    merge_id = report.merges[0].event_id
    assert f"    Acme Corp -> ACME Corporation (score 0.93, undo: {merge_id})\n" in text
    assert "  answer format  json_object\n" in text
    assert (
        "  failed chunks  1 (1 MalformedCompletionError)\n"
        "    MalformedCompletionError in b.md #1: not JSON\n"
    ) in text


def test_without_the_runtime_or_the_model_files_the_local_extra_is_absent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(providers.importlib.util, "find_spec", lambda name: None)
    assert not local_extra_installed()
    monkeypatch.undo()

    def missing() -> None:
        raise MissingExtraError(extra="local", missing="model.onnx")

    monkeypatch.setattr(providers, "packaged_files", missing)
    assert not local_extra_installed()


def test_a_model_url_that_is_not_http_is_refused_before_any_connection() -> None:
    args = argparse.Namespace(llm_base_url="localhost:8000", llm_model="m")
    with pytest.raises(InvalidSettingError, match="--llm-base-url='localhost:8000'"):
        llm_endpoint(args, {})


def test_a_heading_without_text_and_a_file_that_starts_with_prose_take_the_file_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.md").write_text("#\n\n## Second\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("Prose first.\n# Late heading\n", encoding="utf-8")
    assert [d.title for d in read_documents(["a.md", "b.md"]).documents] == ["Second", "b"]


@asynccontextmanager
async def interrupted_opener(
    db: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None = None
) -> AsyncIterator[StoreSet]:
    raise KeyboardInterrupt
    yield  # pragma: no cover


def test_an_interrupt_is_one_line_and_status_130() -> None:
    assert run("stats", "--db", "x", opener=interrupted_opener) == (
        130,
        "redstring: interrupted\n",
    )


def test_a_provider_of_another_dimension_is_one_line_naming_the_fix() -> None:
    stores, _ = asyncio.run(populated_stores())  # dimension 32
    opener = opener_of(stores)

    err = io.StringIO()
    env = {
        "REDSTRING_EMBEDDINGS": "openai",
        "REDSTRING_EMBED_BASE_URL": "http://127.0.0.1:9/v1",
        "REDSTRING_EMBED_MODEL": "e",
        "REDSTRING_EMBED_DIMENSION": "8",
    }
    status = main(
        ["search", "Ada", "--db", "x"], env=env, opener=opener, stdout=io.StringIO(), stderr=err
    )
    assert status == 1
    assert (
        "the database holds 32-dimension vectors and the embedding model makes 8-dimension ones"
    ) in err.getvalue()
    assert err.getvalue().endswith(
        "Pass the --embeddings settings the database was written with, or --embeddings none "
        "for lexical search only.\n"
    )
    assert 'embeddings="none"' not in err.getvalue()  # the flags, not the client's argument


@asynccontextmanager
async def mismatched_opener(
    db: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None = None
) -> AsyncIterator[StoreSet]:
    # What PostgreSQL stores recording 64 dimensions raise when opened at another.
    raise DimensionMismatchError(
        expected=64, actual=dimension or 0, context="PostgreSQL store holds vectors of"
    )
    yield  # pragma: no cover


def test_a_database_refusing_the_providers_dimension_on_open_names_embeddings_none() -> None:
    status, err = run("stats", "--db", "x", "--embeddings", "none", opener=mismatched_opener)
    assert status == 1
    assert "expected dimension 64, got 0" in err
    assert err.endswith(
        "From the command line: pass the same --embeddings settings the database was "
        "written with, or --embeddings none for lexical search only.\n"
    )


def test_mcp_without_its_extra_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "mcp" else real(name)
    )
    status, err = run("mcp", "--db", "x", "--embeddings", "none")
    assert status == 1
    assert "pip install 'redstring[mcp]'" in err


@pytest.mark.asyncio
async def test_postgres_without_its_extra_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redstring.composition.postgres_stores", None)
    with pytest.raises(MissingExtraError, match=re.escape("pip install 'redstring[postgres]'")):
        async with open_store_set(
            "postgresql://nowhere/db", dimension=None, create=False, migrate=False
        ):
            pass  # pragma: no cover


def test_an_empty_file_and_a_dangling_link_in_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "empty.md").write_text("\n\n", encoding="utf-8")
    [empty] = read_documents(["docs"]).documents
    assert (empty.title, empty.text) == ("empty", "\n\n")
    (tmp_path / "docs" / "gone.md").symlink_to(tmp_path / "nowhere.md")
    read = read_documents(["docs"])
    assert [document.id for document in read.documents] == ["docs/empty.md"]
    [gone] = read.skipped
    assert gone.id == "docs/gone.md"
    assert gone.reason.startswith("cannot be read")
