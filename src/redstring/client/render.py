"""Printing answers for people: aligned columns, scores with four decimals, `-` for "not ranked"."""

from __future__ import annotations

import textwrap
from typing import TextIO

from redstring.client.answers import EntitySearchAnswer, PassageSearchAnswer, StatsAnswer
from redstring.composition.build_graph import GraphBuildReport
from redstring.composition.index_documents import IndexReport
from redstring.extraction.extractor import ChunkFailure


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


def print_index_report(report: IndexReport, out: TextIO) -> None:
    """The summary of one `redstring index`."""
    skipped = f", {len(report.skipped)} file(s) skipped" if report.skipped else ""
    out.write(
        f"indexed {report.documents} document(s): {report.chunks_written} chunk(s) written, "
        f"{report.unchanged} document(s) unchanged, {report.embedded} chunk(s) embedded"
        f"{skipped}\n"
    )


def print_build_report(report: GraphBuildReport, out: TextIO) -> None:
    """The summary of one `redstring build`: counts, domain, merges, answer format, failures."""
    confidence = "" if report.domain_confidence is None else f" {report.domain_confidence:.2f}"
    out.write(f"built tenant {report.tenant_id} from {report.documents} document(s)\n")
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
    for (error_type, cause), places in _grouped(report.failures).items():
        shown = ", ".join(places[:FAILED_PLACES_SHOWN])
        more = len(places) - FAILED_PLACES_SHOWN
        out.write(
            f"    {error_type} in {shown}{f' and {more} more' if more > 0 else ''}: {cause}\n"
        )


#: How many chunks sharing one cause the build report names.
FAILED_PLACES_SHOWN = 5


def _grouped(failures: list[ChunkFailure]) -> dict[tuple[str, str], list[str]]:
    """The failed chunks (`doc #index`) of each cause, in report order: a cause is said once."""
    groups: dict[tuple[str, str], list[str]] = {}
    for failure in failures:
        place = f"{failure.document_id} #{failure.chunk_index}"
        groups.setdefault((failure.error_type, failure.cause), []).append(place)
    return groups
