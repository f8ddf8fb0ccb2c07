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
import unicodedata
from collections.abc import Iterator
from typing import Any, TextIO, overload

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, JsonValue

from redstring.domain.errors import PandasMissingError
from redstring.domain.retrieval import RetrievalMode
from redstring.domain.snippet import best_window
from redstring.domain.tokenize import DEFAULT_LANGUAGE, Analyzer


class _Rows[Row: BaseModel](BaseModel):
    """An answer that is a list of rows: printed as a short table, converted to dicts or a frame.

    It iterates, indexes and `len()`s as its rows (a search answer: its hits,
    best first); an answer without rows is falsy.
    """

    def _rows(self) -> list[Row]:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Row]:  # type: ignore[override]  # rows, not pydantic's fields
        return iter(self._rows())

    def __len__(self) -> int:
        return len(self._rows())

    @overload
    def __getitem__(self, position: int) -> Row: ...
    @overload
    def __getitem__(self, position: slice) -> list[Row]: ...
    def __getitem__(self, position: int | slice) -> Row | list[Row]:
        return self._rows()[position]

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

    model_config = ConfigDict(use_attribute_docstrings=True)

    rank: int
    """Its place in the answer, 1 for the best."""
    id: str
    """The entity's id: pass it to `entity()` for its neighbours."""
    name: str
    """The entity's canonical name."""
    type: str
    """The entity's type, as extracted (e.g. `person`)."""
    description: str
    """What the graph says about it, possibly empty."""
    aliases: list[str]
    """Other names it is known by."""
    score: float
    """The fused rank score: orders this answer, not comparable across answers."""
    semantic: float | None
    """The semantic channel's score, 0..1; `None` when that channel did not rank it."""
    lexical: float | None
    """The lexical channel's score, 0..1; `None` when that channel did not rank it."""
    confidence: float | None = None
    """How likely the entity is related to the query at all, 0..1 (what
    `min_confidence` compares)."""


class EntitySearchAnswer(_Rows[EntityHit]):
    """The entities of one tenant best matching a query, best first.

    Prints as a table; `to_dicts()` / `to_pandas()` give one row per match.
    """

    tenant_id: str
    query: str
    mode: RetrievalMode
    matches: list[EntityHit]
    #: Why `matches` is empty, when it is (ADR 0163); `None` otherwise.
    hint: str | None = None
    #: How HYBRID fused the channels (`RetrievalResult.fusion`); `None` for one channel.
    fusion: str | None = None

    def _rows(self) -> list[EntityHit]:
        return self.matches

    def _print(self, out: io.StringIO) -> None:
        print_entities(self, out)


class PassageHit(BaseModel):
    """One ranked passage (chunk) and where it comes from."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    rank: int
    """Its place in the answer, 1 for the best."""
    chunk_id: str
    """The passage's id: pass it to `passage()` for the whole stored passage."""
    source_id: str
    """The id of the document it comes from (a file's path relative to the indexed folder's
    parent)."""
    index: int
    """Its position among its document's passages, from 0."""
    start: int
    """Where it starts in its document's text, in characters."""
    end: int
    """Where it ends in its document's text, in characters (exclusive)."""
    text: str
    """The passage's text."""
    score: float
    """The fused rank score: orders this answer, not comparable across answers."""
    semantic: float | None
    """The semantic channel's score, 0..1; `None` when that channel did not rank it."""
    lexical: float | None
    """The lexical channel's score, 0..1 (`bm25` mapped); `None` when that channel did not
    rank it."""
    bm25: float | None
    """The raw BM25 score (>= 0, unbounded); `None` when the lexical channel did not rank it."""
    confidence: float | None = None
    """How likely the passage is related to the query at all, 0..1 (what
    `min_confidence` compares)."""


class PassageSearchAnswer(_Rows[PassageHit]):
    """The passages of one tenant best matching a query, best first.

    Prints each passage shortened; `to_dicts()` / `to_pandas()` give one row per match.
    """

    tenant_id: str
    query: str
    mode: RetrievalMode
    matches: list[PassageHit]
    #: Why `matches` is empty, when it is (ADR 0163); `None` otherwise.
    hint: str | None = None
    #: How HYBRID fused the channels (`ChunkRetrievalResult.fusion`); `None` for one channel.
    fusion: str | None = None
    #: The text analysis of the passages' index (`english`, `german`, ..., `none`): what the
    #: lexical channel matched the query's words with, and what the printed window marks by.
    language: str = DEFAULT_LANGUAGE

    def _rows(self) -> list[PassageHit]:
        return self.matches

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


class EntityAnswer(_Rows[Neighbour]):
    """One entity with its neighbours, ordered by relationship id.

    `to_dicts()` / `to_pandas()` give one row per neighbour.
    """

    tenant_id: str
    entity: EntityDetail
    neighbours: list[Neighbour]

    def _rows(self) -> list[Neighbour]:
        return self.neighbours

    def _print(self, out: io.StringIO) -> None:
        entity = self.entity
        out.write(f"{printable(entity.name)} ({printable(entity.type)}) {printable(entity.id)}\n")
        if entity.description:
            out.write(f"  {printable(entity.description)}\n")
        for neighbour in self.neighbours:
            arrow = "->" if neighbour.direction == "outgoing" else "<-"
            kind, name = printable(neighbour.relationship_type), printable(neighbour.name)
            out.write(f"  {arrow} {kind} {name} ({printable(neighbour.type)})\n")


class TenantStats(BaseModel):
    """The size of one tenant.

    `entity_vectors` counts the entities' vectors, `embedded_chunks` the
    chunks holding a vector of their own (together, the tenant's vectors);
    `chunks` and `embedded_chunks` are `None` where the backend keeps no chunks.
    `entity_vectors` was named `vectors` before: that name is still accepted
    and read (`tenant.vectors`), and no longer written.
    """

    model_config = ConfigDict(populate_by_name=True)

    tenant_id: str
    entities: int
    entities_by_type: dict[str, int]
    relationships: int
    entity_vectors: int = Field(validation_alias=AliasChoices("entity_vectors", "vectors"))
    chunks: int | None
    embedded_chunks: int | None = None

    @property
    def vectors(self) -> int:
        """`entity_vectors`, under its former name."""
        return self.entity_vectors


class StatsAnswer(_Rows[TenantStats]):
    """Every tenant holding entities or passages (and the tenant asked about), by tenant id.

    `to_dicts()` / `to_pandas()` give one row per tenant.
    """

    backend: str
    tenants: list[TenantStats]

    def _rows(self) -> list[TenantStats]:
        return self.tenants

    def _print(self, out: io.StringIO) -> None:
        print_stats(self, out)


# Printing for people: aligned columns, scores with four decimals, `-` for "not ranked".


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 passage`, `2 passages`: `number` and `noun`, plural unless it is one."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def printable(text: str) -> str:
    """`text` with each control character (a newline, a tab, NUL, ESC) written as its escape.

    Ids and names stored before such characters were refused, and passages,
    would otherwise break a printed row in two, or drive the terminal.
    """
    if text.isprintable():
        return text
    return "".join(
        character.encode("unicode_escape").decode("ascii")
        if unicodedata.category(character) == "Cc"
        else character
        for character in text
    )


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
    """One row per entity: rank, confidence, fused score, each channel's score, type, name, id."""
    found = count(len(answer.matches), "entity", "entities")
    out.write(f"{found} for {answer.query!r} ({answer.mode.value})\n")
    if not answer.matches:
        _hint(answer.hint, out)
        return
    rows = [["#", "confidence", "fused", "semantic", "lexical", "type", "name", "id"]]
    rows += [
        [
            str(hit.rank),
            _score(hit.confidence),
            f"{hit.score:.4f}",
            _score(hit.semantic),
            _score(hit.lexical),
            printable(hit.type),
            printable(hit.name),
            hit.id,
        ]
        for hit in answer.matches
    ]
    _table(rows, out)


def print_passages(answer: PassageSearchAnswer, out: TextIO, *, width: int = 96) -> None:
    """Each passage: rank, scores and source on one line, then the window of its text that
    matched the query best, matched words marked (`best_window`, in the answer's `language`),
    indented. The window's line breaks and tabs print as spaces, and its other control
    characters (ESC, NUL) as their escapes, so a passage cannot drive the terminal."""
    found = count(len(answer.matches), "passage")
    analyzer = Analyzer(answer.language)
    out.write(f"{found} for {answer.query!r} ({answer.mode.value})\n")
    if not answer.matches:
        _hint(answer.hint, out)
    for hit in answer.matches:
        bm25 = "-" if hit.bm25 is None else f"{hit.bm25:.4f}"
        out.write(
            f"{hit.rank}. confidence {_score(hit.confidence)}  fused {hit.score:.4f}  "
            f"semantic {_score(hit.semantic)}  lexical {_score(hit.lexical)} (bm25 {bm25})  "
            f"{printable(hit.source_id)} #{hit.index}\n"
        )
        excerpt = printable(best_window(hit.text, answer.query, width * 2, analyzer))
        out.write(textwrap.indent(textwrap.fill(excerpt, width=width), "   ") + "\n")


def print_stats(answer: StatsAnswer, out: TextIO) -> None:
    """Per tenant: entities (by type), relationships, vectors, chunks; one line for a tenant
    holding nothing (the one asked for, named by no write yet)."""
    out.write(f"{answer.backend} database, {count(len(answer.tenants), 'tenant')}\n")
    for tenant in answer.tenants:
        chunks = "not kept by this backend" if tenant.chunks is None else str(tenant.chunks)
        if not (tenant.entities or tenant.relationships or tenant.entity_vectors or tenant.chunks):
            out.write(f"tenant {tenant.tenant_id}: empty (nothing indexed or built in it)\n")
            continue
        out.write(f"tenant {tenant.tenant_id}\n")
        out.write(f"  entities       {tenant.entities}\n")
        for entity_type, number in tenant.entities_by_type.items():
            out.write(f"    {entity_type:<12} {number}\n")
        out.write(f"  relationships  {tenant.relationships}\n")
        out.write(f"  vectors        {_vectors(tenant)}\n")
        out.write(f"  chunks         {chunks}\n")


def _vectors(tenant: TenantStats) -> str:
    if tenant.embedded_chunks is None:
        return str(tenant.entity_vectors)
    total = tenant.entity_vectors + tenant.embedded_chunks
    return f"{total} ({tenant.entity_vectors} of entities, {tenant.embedded_chunks} of chunks)"
