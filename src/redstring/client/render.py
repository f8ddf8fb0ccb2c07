"""Printing the index and build reports for people."""

from __future__ import annotations

from typing import TextIO

from redstring.composition.build_graph import GraphBuildReport
from redstring.composition.index_documents import IndexReport


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
    for failure in report.failures:
        out.write(
            f"    {failure.document_id} #{failure.chunk_index}: {failure.error_type}: "
            f"{failure.cause}\n"
        )
