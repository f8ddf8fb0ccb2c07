"""Tenant flags and reading document folders: pure, no stores."""

from __future__ import annotations

import os
import re
from pathlib import Path
from uuid import UUID

import pytest

from redstring.client.documents import read_documents
from redstring.client.tenants import DEFAULT_TENANT, parse_tenant
from redstring.domain.ids import tenant_id_for
from redstring.errors import DocumentPathError, InvalidArgumentError, NoDocumentsError


def test_the_default_tenant_is_pinned() -> None:
    # Documented in ADR 0081 and the how-to: a database written today must be read tomorrow.
    assert UUID("0dac2287-add2-55ee-a494-2acd53c7f09a") == DEFAULT_TENANT
    assert parse_tenant("default") == DEFAULT_TENANT


def test_a_uuid_is_taken_as_is_and_a_name_is_derived() -> None:
    given = "22222222-2222-4222-8222-222222222222"
    assert parse_tenant(f"  {given} ") == UUID(given)
    assert parse_tenant("acme") == tenant_id_for("acme")
    assert parse_tenant("acme") != parse_tenant("Acme")
    assert parse_tenant("acme") != parse_tenant(str(tenant_id_for("other")))


@pytest.mark.parametrize("blank", ["", "  ", "\t"])
def test_a_blank_tenant_is_refused(blank: str) -> None:
    with pytest.raises(ValueError, match="must not be blank"):
        parse_tenant(blank)


def test_folders_are_read_recursively_skipping_hidden_and_other_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs" / "deep").mkdir(parents=True)
    (tmp_path / "docs" / ".hidden").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# Babbage\n\nThe engine.", encoding="utf-8")
    (tmp_path / "docs" / "deep" / "a.TXT").write_text("Ada.", encoding="utf-8")
    (tmp_path / "docs" / "deep" / "image.png").write_bytes(b"\x89PNG")
    (tmp_path / "docs" / ".hidden" / "c.md").write_text("hidden", encoding="utf-8")
    (tmp_path / "docs" / ".d.md").write_text("hidden", encoding="utf-8")
    documents = read_documents(["docs", "docs/b.md"]).documents
    assert [d.id for d in documents] == ["docs/b.md", "docs/deep/a.TXT"]
    assert [d.title for d in documents] == ["Babbage", "a"]
    assert documents[0].metadata == {"path": "docs/b.md"}
    assert documents[1].text == "Ada."


def test_bad_paths_name_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "data.csv").write_text("a,b", encoding="utf-8")
    (tmp_path / "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(DocumentPathError, match=re.escape("missing.md: no such file")):
        read_documents(["missing.md"])
    with pytest.raises(DocumentPathError, match=re.escape("data.csv: not a text or Markdown file")):
        read_documents(["data.csv"])
    with pytest.raises(
        NoDocumentsError, match=re.escape("no .txt, .md or .markdown file found under empty")
    ):
        read_documents(["empty"])


def test_a_pipe_a_root_that_is_no_folder_and_an_unknown_encoding_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "a.md").write_text("Ada.", encoding="utf-8")
    with pytest.raises(DocumentPathError, match=re.escape("pipe: exists but is a pipe or socket")):
        read_documents(["pipe"])
    with pytest.raises(DocumentPathError, match=re.escape("a.md: `root` is not a folder")):
        read_documents(["a.md"], root="a.md")
    with pytest.raises(InvalidArgumentError, match="encoding='klingon' is not allowed"):
        read_documents(["a.md"], encoding="klingon")
