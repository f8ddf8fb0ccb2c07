"""What `index_documents` and `build_graph` take and report, beyond the root's types.

- `index_documents`: a `SlidingWindowChunker` (the default), an
  `IndexProgressCallback`, and its `IndexReport` (with each `SkippedFile`);
- `build_graph`: a domain (`AUTO`, an `AutoDomain`, a bundled domain's name,
  or your own `DomainSchema`), and its `GraphBuildReport` with each
  `ChunkFailure` and `MergeSummary`.
"""

from __future__ import annotations

from redstring.composition.build_graph import GraphBuildReport, MergeSummary
from redstring.composition.index_documents import (
    IndexProgressCallback,
    IndexReport,
    SkippedFile,
)
from redstring.domain.chunking import SlidingWindowChunker
from redstring.extraction.domains import AUTO, AutoDomain, DomainSchema
from redstring.extraction.extractor import ChunkFailure

__all__ = [
    "AUTO",
    "AutoDomain",
    "ChunkFailure",
    "DomainSchema",
    "GraphBuildReport",
    "IndexProgressCallback",
    "IndexReport",
    "MergeSummary",
    "SkippedFile",
    "SlidingWindowChunker",
]
