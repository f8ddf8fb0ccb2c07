"""The ports: `typing.Protocol`s in domain vocabulary, split into capabilities.

A caller depends on the narrowest capability it calls. Ports hold no logic.
Implement one to bring your own store or model, and point its suite in
`redstring.testing` at it. The namespace also holds the values the ports
exchange beyond the root's types:

- graph: `GraphStore` = `GraphReader` + `GraphWriter` + `GraphPurge` +
  `BlockingIndex` + `BlockingIndexMaintenance`; `GraphSummary`;
- vectors: `VectorStore` = `VectorWriter` + `VectorSearcher` + `VectorPurge` +
  `VectorModels`;
  `VectorRecord`, `VectorMatch`;
- chunks: `ChunkStore` = `ChunkWriter` + `ChunkReader` + `ChunkModels` +
  `LexicalChunkSource` + `SemanticChunkSource` + `ChunkPurge`; `ChunkManifest`, `ChunkSummary`,
  `CorpusStats`, `LexicalCandidates` of `LexicalCandidate`s, and the
  `Analyzer` a chunk store turns text into terms with (a query too);
- events: `EventLog` of `Event`s (`DocumentExtracted`, `DocumentChunked`,
  `EntitiesEmbedded`, `EntitiesMerged`, `EntitiesRetired`, `MergeUndone`);
- models: `EmbeddingProvider`, `LlmProvider`, `CheckedLlmProvider`, `ServedLlmProvider`;
  `AnswerMemory` keeps their answers for a rerun;
- `SharedTransaction`: adapters on one database committing one task's writes together.
"""

from __future__ import annotations

from redstring.domain.bm25 import CorpusStats, LexicalCandidate, LexicalCandidates
from redstring.domain.chunk import ChunkManifest
from redstring.domain.events import (
    DocumentChunked,
    DocumentExtracted,
    EntitiesEmbedded,
    EntitiesMerged,
    EntitiesRetired,
    Event,
    MergeUndone,
)
from redstring.domain.summary import ChunkSummary, GraphSummary
from redstring.domain.tokenize import Analyzer
from redstring.domain.vector import VectorMatch, VectorRecord
from redstring.ports.answer_memory import AnswerMemory
from redstring.ports.chunk_store import (
    ChunkModels,
    ChunkPurge,
    ChunkReader,
    ChunkStore,
    ChunkWriter,
    LexicalChunkSource,
    SemanticChunkSource,
)
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.event_log import EventLog
from redstring.ports.graph_store import (
    BlockingIndex,
    BlockingIndexMaintenance,
    GraphPurge,
    GraphReader,
    GraphStore,
    GraphWriter,
)
from redstring.ports.llm_provider import CheckedLlmProvider, LlmProvider, ServedLlmProvider
from redstring.ports.transactions import SharedTransaction
from redstring.ports.vector_store import (
    VectorModels,
    VectorPurge,
    VectorSearcher,
    VectorStore,
    VectorWriter,
)

__all__ = [
    "Analyzer",
    "AnswerMemory",
    "BlockingIndex",
    "BlockingIndexMaintenance",
    "CheckedLlmProvider",
    "ChunkManifest",
    "ChunkModels",
    "ChunkPurge",
    "ChunkReader",
    "ChunkStore",
    "ChunkSummary",
    "ChunkWriter",
    "CorpusStats",
    "DocumentChunked",
    "DocumentExtracted",
    "EmbeddingProvider",
    "EntitiesEmbedded",
    "EntitiesMerged",
    "EntitiesRetired",
    "Event",
    "EventLog",
    "GraphPurge",
    "GraphReader",
    "GraphStore",
    "GraphSummary",
    "GraphWriter",
    "LexicalCandidate",
    "LexicalCandidates",
    "LexicalChunkSource",
    "LlmProvider",
    "MergeUndone",
    "SemanticChunkSource",
    "ServedLlmProvider",
    "SharedTransaction",
    "VectorMatch",
    "VectorModels",
    "VectorPurge",
    "VectorRecord",
    "VectorSearcher",
    "VectorStore",
    "VectorWriter",
]
