"""`describe` and `passage`: what a tenant holds, and one passage by id (client/catalogue.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring import Redstring, SourceDocument, tenant_id_for
from redstring.client.embeddings import UNEMBEDDED_DIMENSION
from redstring.errors import DatabaseNotFoundError, InvalidArgumentError

ADA = SourceDocument(id="a.md", text="Ada Lovelace wrote the first program for the engine.")
SECRET = SourceDocument(id="b.md", text="SECRET notes of another tenant.")


def test_describe_counts_the_tenants_sources_and_names_the_other_tenants(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    with Redstring(db, tenant="other", embeddings="none") as rs:
        rs.index([ADA, SECRET])
    with Redstring(db, tenant="home", embeddings="none") as rs:
        assert rs.describe().is_empty
        rs.index([ADA])
        catalogue = rs.describe()
        [hit] = rs.passages("first program").matches
        passage = rs.passage(hit.chunk_id)
        with pytest.raises(InvalidArgumentError, match="passage_id"):
            rs.passage("c:" + "0" * 32)
    assert (catalogue.passages, catalogue.sources, catalogue.entities) == (1, {"a.md": 1}, 0)
    assert not catalogue.is_empty
    assert catalogue.tenant_id == str(tenant_id_for("home"))
    # Every other tenant holding data is listed: "other" holds passages only.
    assert catalogue.other_tenants == [str(tenant_id_for("other"))]
    assert catalogue.dimension == UNEMBEDDED_DIMENSION  # made with no model
    assert passage.text == ADA.text


def test_a_read_only_client_needs_an_existing_database(tmp_path: Path) -> None:
    with pytest.raises(DatabaseNotFoundError):
        Redstring(tmp_path / "missing.db", embeddings="none", create=False)
    assert not (tmp_path / "missing.db").exists()
