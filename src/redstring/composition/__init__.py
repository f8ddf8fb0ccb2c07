"""The top layer: the only modules that hold collaborators no lower layer may hold together.

Each module here says what it composes:

- `retrieval`: `EmbeddingProvider` + `VectorStore` + `GraphStore` into `Retriever`;
- `chunk_retrieval`: `EmbeddingProvider` + `ChunkStore` into `ChunkRetriever`;
- `index_documents`: chunker + `ChunkStore` (+ `EmbeddingProvider`);
- `build_graph`, `undo_merge`, `rebuild_stores`: `LlmProvider` + extraction +
  consolidation + the event log + projections into the graph, vector and chunk stores;
- `rekey`: a graph store's blocking-index maintenance, re-keying a tenant.
"""

from __future__ import annotations

from redstring.composition.build_graph import GraphBuildReport, MergeSummary, build_graph
from redstring.composition.rebuild import catch_up_stores, rebuild_stores
from redstring.composition.rekey import RekeyReport, rekey_graph
from redstring.composition.retrieval import Retriever
from redstring.composition.undo import undo_merge
from redstring.extraction.domains import AUTO, AutoDomain

__all__ = [
    "AUTO",
    "AutoDomain",
    "GraphBuildReport",
    "MergeSummary",
    "RekeyReport",
    "Retriever",
    "build_graph",
    "catch_up_stores",
    "rebuild_stores",
    "rekey_graph",
    "undo_merge",
]
