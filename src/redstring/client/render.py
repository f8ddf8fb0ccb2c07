"""Printing answers for people: aligned columns, scores with four decimals, `-` for "not ranked"."""

from __future__ import annotations

import textwrap
from typing import TextIO

from redstring.client.answers import (
    EntitySearchAnswer,
    PassageSearchAnswer,
    StatsAnswer,
    TenantStats,
)
from redstring.composition.build_graph import GraphBuildReport
from redstring.composition.index_documents import IndexReport
from redstring.domain.snippet import best_window


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 passage`, `2 passages`: `number` and `noun`, plural unless it is one."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


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
    found = count(len(answer.matches), "entity", "entities")
    out.write(f"{found} for {answer.query!r} ({answer.mode.value})\n")
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
    """Each passage: rank, scores and source on one line, then the window of its text that
    matched the query best, matched words marked (`best_window`), indented."""
    found = count(len(answer.matches), "passage")
    out.write(f"{found} for {answer.query!r} ({answer.mode.value})\n")
    if not answer.matches:
        _hint(answer.hint, out)
    for hit in answer.matches:
        bm25 = "-" if hit.bm25 is None else f"{hit.bm25:.4f}"
        out.write(
            f"{hit.rank}. confidence {_score(hit.confidence)}  fused {hit.score:.4f}  "
            f"semantic {_score(hit.semantic)}  lexical {_score(hit.lexical)} (bm25 {bm25})  "
            f"{hit.source_id} #{hit.index}\n"
        )
        excerpt = best_window(hit.text, answer.query, width * 2)
        out.write(textwrap.indent(textwrap.fill(excerpt, width=width), "   ") + "\n")


def print_stats(answer: StatsAnswer, out: TextIO) -> None:
    """Per tenant: entities (by type), relationships, vectors, chunks."""
    out.write(f"{answer.backend} database, {count(len(answer.tenants), 'tenant')}\n")
    for tenant in answer.tenants:
        chunks = "not kept by this backend" if tenant.chunks is None else str(tenant.chunks)
        out.write(f"tenant {tenant.tenant_id}\n")
        out.write(f"  entities       {tenant.entities}\n")
        for entity_type, number in tenant.entities_by_type.items():
            out.write(f"    {entity_type:<12} {number}\n")
        out.write(f"  relationships  {tenant.relationships}\n")
        out.write(f"  vectors        {_vectors(tenant)}\n")
        out.write(f"  chunks         {chunks}\n")


def _vectors(tenant: TenantStats) -> str:
    if tenant.embedded_chunks is None:
        return str(tenant.vectors)
    total = tenant.vectors + tenant.embedded_chunks
    return f"{total} ({tenant.vectors} of entities, {tenant.embedded_chunks} of chunks)"


def print_index_report(report: IndexReport, out: TextIO) -> None:
    """The summary of one `redstring index`, naming the first few documents removed."""
    skipped = f", {count(len(report.skipped), 'file')} skipped" if report.skipped else ""
    removed = ""
    if report.removed:
        named = ", ".join(report.removed[:_NAMED_REMOVALS])
        more = ", ..." if len(report.removed) > _NAMED_REMOVALS else ""
        removed = f", {count(len(report.removed), 'document')} removed ({named}{more})"
    out.write(
        f"indexed {count(report.documents, 'document')}: "
        f"{count(report.chunks_written, 'chunk')} written, "
        f"{count(report.unchanged, 'document')} unchanged, "
        f"{count(report.embedded, 'chunk')} embedded{skipped}{removed}\n"
    )


#: How many removed documents an index report names before "...".
_NAMED_REMOVALS = 5


def print_build_report(report: GraphBuildReport, out: TextIO) -> None:
    """The summary of one `redstring build`: counts, domain, merges, answer format, failures."""
    confidence = "" if report.domain_confidence is None else f" {report.domain_confidence:.2f}"
    out.write(f"built tenant {report.tenant_id} from {count(report.documents, 'document')}\n")
    out.write(
        f"  domain         {report.domain} (chosen by {report.domain_chosen_by}{confidence})\n"
    )
    if report.domain_failure:
        out.write(f"  domain failure {report.domain_failure}\n")
    out.write(f"  entities       {report.entities_written}\n")
    out.write(
        f"  relationships  {report.relationships_written} "
        f"({report.relationships_dropped} dropped: an end was not extracted)\n"
    )
    reused = (
        f" ({report.chunks_reused} answers reused from earlier runs)"
        if report.chunks_reused
        else ""
    )
    out.write(f"  chunks         {report.chunks_written}{reused}\n")
    out.write(f"  merges         {len(report.merges)}\n")
    for merge in report.merges:
        out.write(
            f"    {', '.join(merge.merged_names)} -> {merge.survivor_name} "
            f"(score {merge.score:.2f}, undo: {merge.event_id})\n"
        )
    if report.answer_format is not None:
        out.write(f"  answer format  {report.answer_format}\n")
    causes = ", ".join(f"{count} {cause}" for cause, count in report.failure_causes.items())
    out.write(f"  failed chunks  {len(report.failures)}{f' ({causes})' if causes else ''}\n")
    for failure in report.failures:
        out.write(
            f"    {failure.document_id} #{failure.chunk_index}: {failure.error_type}: "
            f"{failure.cause}\n"
        )
