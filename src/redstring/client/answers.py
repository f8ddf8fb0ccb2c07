"""What the commands and the MCP tools answer with: plain, JSON-ready models.

Scores keep the library's scales: `score` is the fused rank score (ordinal,
comparable only within one answer); `semantic` and `lexical` are each
channel's own score on 0..1, `None` when that channel did not rank the item;
`bm25` is the raw BM25 score (>= 0, unbounded) a passage's `lexical` maps.
Each answer prints for people (`str(answer)`, and `print_entities`,
`print_passages`, `print_stats` for the command line).
"""

from __future__ import annotations

import io
import textwrap
from typing import Any, TextIO

from pydantic import BaseModel, JsonValue

from redstring.domain.errors import PandasMissingError
from redstring.domain.retrieval import RetrievalMode


class _Rows(BaseModel):
    """An answer that is a list of rows: printed as a short table, converted to dicts or a frame."""

    def _rows(self) -> list[BaseModel]:
        raise NotImplementedError

    def to_dicts(self) -> list[dict[str, Any]]:
        """The rows as plain dicts (JSON-ready), in order."""
        return [row.model_dump(mode="json") for row in self._rows()]

    def to_pandas(self) -> Any:
        """The rows as a `pandas.DataFrame`, one column per field.

        Raises `PandasMissingError` when pandas is not installed.
        """
        try:
            import pandas  # type: ignore[import-untyped]  # noqa: PLC0415 (optional)
        except ImportError:
            raise PandasMissingError from None
        return pandas.DataFrame(self.to_dicts())

    def _print(self, out: io.StringIO) -> None:
        raise NotImplementedError

    def __str__(self) -> str:
        out = io.StringIO()
        self._print(out)
        return out.getvalue().rstrip("\n")

    def __repr__(self) -> str:
        return str(self)


class EntityHit(BaseModel):
    """One ranked entity."""

    rank: int
    id: str
    name: str
    type: str
    description: str
    aliases: list[str]
    score: float
    semantic: float | None
    lexical: float | None
    #: How likely the entity is related to the query at all, 0..1 (`ScoredEntity.confidence`).
    confidence: float | None = None


class EntitySearchAnswer(_Rows):
    """The entities of one tenant best matching a query, best first.

    Prints as a table; `to_dicts()` / `to_pandas()` give one row per match.
    """

    tenant_id: str
    query: str
    mode: RetrievalMode
    matches: list[EntityHit]
    #: Why `matches` is empty, when it is (ADR 0163); `None` otherwise.
    hint: str | None = None

    def _rows(self) -> list[BaseModel]:
        return list(self.matches)

    def _print(self, out: io.StringIO) -> None:
        print_entities(self, out)


class PassageHit(BaseModel):
    """One ranked passage (chunk) and where it comes from."""

    rank: int
    chunk_id: str
    source_id: str
    index: int
    start: int
    end: int
    text: str
    score: float
    semantic: float | None
    lexical: float | None
    bm25: float | None
    #: How likely the passage is related to the query at all, 0..1 (`ScoredChunk.confidence`).
    confidence: float | None = None


class PassageSearchAnswer(_Rows):
    """The passages of one tenant best matching a query, best first.

    Prints each passage shortened; `to_dicts()` / `to_pandas()` give one row per match.
    """

    tenant_id: str
    query: str
    mode: RetrievalMode
    matches: list[PassageHit]
    #: Why `matches` is empty, when it is (ADR 0163); `None` otherwise.
    hint: str | None = None

    def _rows(self) -> list[BaseModel]:
        return list(self.matches)

    def _print(self, out: io.StringIO) -> None:
        print_passages(self, out)


class EntityDetail(BaseModel):
    """Everything the graph holds about one entity."""

    id: str
    name: str
    type: str
    description: str
    aliases: list[str]
    properties: dict[str, JsonValue]
    confidence: float
    source_document_ids: list[str]


class Neighbour(BaseModel):
    """A relationship touching the entity, and the entity at its other end.

    `direction` is `outgoing` when the entity is the relationship's source.
    """

    relationship_id: str
    relationship_type: str
    direction: str
    description: str
    confidence: float
    entity_id: str
    name: str
    type: str


class EntityAnswer(_Rows):
    """One entity with its neighbours, ordered by relationship id.

    `to_dicts()` / `to_pandas()` give one row per neighbour.
    """

    tenant_id: str
    entity: EntityDetail
    neighbours: list[Neighbour]

    def _rows(self) -> list[BaseModel]:
        return list(self.neighbours)

    def _print(self, out: io.StringIO) -> None:
        entity = self.entity
        out.write(f"{entity.name} ({entity.type}) {entity.id}\n")
        if entity.description:
            out.write(f"  {entity.description}\n")
        for neighbour in self.neighbours:
            arrow = "->" if neighbour.direction == "outgoing" else "<-"
            out.write(
                f"  {arrow} {neighbour.relationship_type} {neighbour.name} ({neighbour.type})\n"
            )


class TenantStats(BaseModel):
    """The size of one tenant. `chunks` is `None` where the backend keeps no chunks."""

    tenant_id: str
    entities: int
    entities_by_type: dict[str, int]
    relationships: int
    vectors: int
    chunks: int | None


class StatsAnswer(_Rows):
    """Every tenant holding entities or passages (and the tenant asked about), by tenant id.

    `to_dicts()` / `to_pandas()` give one row per tenant.
    """

    backend: str
    tenants: list[TenantStats]

    def _rows(self) -> list[BaseModel]:
        return list(self.tenants)

    def _print(self, out: io.StringIO) -> None:
        print_stats(self, out)


# Printing for people: aligned columns, scores with four decimals, `-` for "not ranked".


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _hint(hint: str | None, out: TextIO) -> None:
    if hint is not None:
        out.write(textwrap.fill(hint, width=96, initial_indent="  ", subsequent_indent="  ") + "\n")


def _table(rows: list[list[str]], out: TextIO) -> None:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        out.write("  ".join(cells).rstrip() + "\n")


def print_entities(answer: EntitySearchAnswer, out: TextIO) -> None:
    """One row per entity: rank, fused score, each channel's score, type, name, id."""
    out.write(f"{len(answer.matches)} entities for {answer.query!r} ({answer.mode.value})\n")
    if not answer.matches:
        _hint(answer.hint, out)
        return
    rows = [["#", "fused", "semantic", "lexical", "type", "name", "id"]]
    rows += [
        [
            str(hit.rank),
            f"{hit.score:.4f}",
            _score(hit.semantic),
            _score(hit.lexical),
            hit.type,
            hit.name,
            hit.id,
        ]
        for hit in answer.matches
    ]
    _table(rows, out)


def print_passages(answer: PassageSearchAnswer, out: TextIO, *, width: int = 96) -> None:
    """Each passage: rank, scores and source on one line, then its text, shortened and indented."""
    out.write(f"{len(answer.matches)} passages for {answer.query!r} ({answer.mode.value})\n")
    if not answer.matches:
        _hint(answer.hint, out)
    for hit in answer.matches:
        bm25 = "-" if hit.bm25 is None else f"{hit.bm25:.4f}"
        out.write(
            f"{hit.rank}. fused {hit.score:.4f}  semantic {_score(hit.semantic)}  "
            f"lexical {_score(hit.lexical)} (bm25 {bm25})  {hit.source_id} #{hit.index}\n"
        )
        excerpt = textwrap.shorten(" ".join(hit.text.split()), width=width * 2, placeholder=" ...")
        out.write(textwrap.indent(textwrap.fill(excerpt, width=width), "   ") + "\n")


def print_stats(answer: StatsAnswer, out: TextIO) -> None:
    """Per tenant: entities (by type), relationships, vectors, chunks."""
    out.write(f"{answer.backend} database, {len(answer.tenants)} tenant(s)\n")
    for tenant in answer.tenants:
        chunks = "not kept by this backend" if tenant.chunks is None else str(tenant.chunks)
        out.write(f"tenant {tenant.tenant_id}\n")
        out.write(f"  entities       {tenant.entities}\n")
        for entity_type, count in tenant.entities_by_type.items():
            out.write(f"    {entity_type:<12} {count}\n")
        out.write(f"  relationships  {tenant.relationships}\n")
        out.write(f"  vectors        {tenant.vectors}\n")
        out.write(f"  chunks         {chunks}\n")
