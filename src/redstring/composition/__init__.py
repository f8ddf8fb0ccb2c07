"""The top layer: the only modules that hold collaborators no lower layer may hold together.

Each module here says what it composes:

- `retrieval`: `EmbeddingProvider` + `VectorStore` + `GraphStore` into `Retriever`;
- `chunk_retrieval`: `EmbeddingProvider` + `ChunkStore` into `ChunkRetriever`;
- `index_documents`: chunker + `ChunkStore` (+ `EmbeddingProvider`);
- `build_graph`, `undo_merge`, `rebuild_stores`: `LlmProvider` + extraction +
  consolidation + the event log + projections into the graph, vector and chunk stores;
- `rekey`: a graph store's blocking-index maintenance, re-keying a tenant.
"""
