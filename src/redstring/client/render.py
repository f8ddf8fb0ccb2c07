"""Printing the index and build reports for people."""

from __future__ import annotations

from typing import TextIO

from redstring.client.answers import count, printable
from redstring.composition.build_graph import GraphBuildReport
from redstring.composition.index_documents import IndexReport
from redstring.extraction.extractor import ChunkFailure


def print_index_report(report: IndexReport, out: TextIO) -> None:
    """The summary of one `redstring index`, naming the first few documents removed."""
    empty = f", {count(report.empty, 'document')} empty (nothing to index)" if report.empty else ""
    folders = sum(1 for file in report.skipped if file.id.endswith("/"))
    skipped = ", ".join(
        count(number, noun)
        for number, noun in ((len(report.skipped) - folders, "file"), (folders, "folder"))
        if number
    )
    skipped = f", {skipped} skipped" if skipped else ""
    removed = ""
    if report.removed:
        named = ", ".join(printable(removed) for removed in report.removed[:_NAMED_REMOVALS])
        more = ", ..." if len(report.removed) > _NAMED_REMOVALS else ""
        removed = f", {count(len(report.removed), 'document')} removed ({named}{more})"
    out.write(
        f"indexed {count(report.documents, 'document')}: "
        f"{count(report.chunks_written, 'chunk')} written, "
        f"{count(report.unchanged, 'document')} unchanged, "
        f"{count(report.embedded, 'chunk')} embedded{empty}{skipped}{removed}\n"
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
        f"({report.relationships_dropped} dropped: an end was not extracted, or both "
        "ends are one entity)\n"
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
        place = f"{printable(failure.document_id)} #{failure.chunk_index}"
        groups.setdefault((failure.error_type, failure.cause), []).append(place)
    return groups
