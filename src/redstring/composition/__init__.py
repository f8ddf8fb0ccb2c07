"""The top layer: the only modules that hold collaborators no lower layer may hold together.

Each module here says what it composes. `retrieval` composes
`EmbeddingProvider` + `VectorStore` + `GraphStore` into `Retriever`.
"""

from __future__ import annotations

from redstring.composition.retrieval import Retriever

__all__ = ["Retriever"]
