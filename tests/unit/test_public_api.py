"""The public surface: exactly the supported names, and closed under its signatures.

The closure rule: every type named in an exported signature that is *defined
in redstring* must itself be exported, or a caller who wants to annotate a
variable, construct an argument or catch a result has to import an internal
module. Types defined outside redstring (builtins, `typing`, the standard
library such as `UUID` or `Sequence`, and third-party ones such as pydantic's
`JsonValue`) are the caller's to import from their own home, so they are
excluded. A signature is: a function's parameters and return; for a class,
walking its MRO through every class defined in redstring, its annotated public
attributes (pydantic fields), its `__init__`, and its public methods and
properties.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Iterator

import redstring

EXPECTED = {
    "AsyncRedstring",
    "Redstring",
    "EntityAnswer",
    "EntityDetail",
    "EntityHit",
    "EntitySearchAnswer",
    "Neighbour",
    "PassageHit",
    "PassageSearchAnswer",
    "StatsAnswer",
    "TenantStats",
    "ModelFiles",
    "NormalizedQuery",
    "LocalEmbeddingProvider",
    "OpenAICompatibleEmbeddingProvider",
    "OpenAICompatibleLlmProvider",
    "Schema",
    "PostgresDatabase",
    "SqliteDatabase",
    "AUTO",
    "AdaptiveFusion",
    "AutoDomain",
    "BlockingIndex",
    "BuildFailedError",
    "CheckedLlmProvider",
    "ChunkExtractionError",
    "ChunkFailure",
    "ChunkId",
    "ChunkMatch",
    "ChunkPurge",
    "ChunkReader",
    "ChunkRetrievalResult",
    "ChunkRetriever",
    "ChunkSourceMismatchError",
    "ChunkStore",
    "ChunkSummary",
    "ChunkWriter",
    "CompletionError",
    "TruncatedCompletionError",
    "CorpusStats",
    "DimensionMismatchError",
    "DimensionRequiredError",
    "ReadOnlyDatabaseError",
    "DocumentChunked",
    "DocumentExtracted",
    "DomainClassificationError",
    "DomainSchema",
    "DuplicateDocumentError",
    "EmbeddingProvider",
    "EmptyCompletionError",
    "EntitiesEmbedded",
    "EntitiesMerged",
    "EntitiesRetired",
    "Entity",
    "EntityId",
    "Event",
    "EventLog",
    "EvidenceFusion",
    "FakeEmbeddingProvider",
    "FakeLlmProvider",
    "FusionStrategy",
    "GraphBuildReport",
    "GraphPurge",
    "GraphReader",
    "GraphStore",
    "GraphSummary",
    "GraphWriter",
    "InMemoryChunkStore",
    "InMemoryEventLog",
    "InMemoryGraphStore",
    "InMemoryVectorStore",
    "IncompleteVectorSetupError",
    "InconsistentCorpusError",
    "IndexProgressCallback",
    "IndexReport",
    "InvalidArgumentError",
    "InvalidSettingError",
    "InvalidVectorError",
    "LexicalCandidate",
    "LexicalCandidates",
    "LexicalChunkSource",
    "LlmProvider",
    "MalformedCompletionError",
    "MergeAlreadyUndoneError",
    "MergeNotFoundError",
    "MergeNotUndoableError",
    "MergeSummary",
    "MergeUndone",
    "MissingCapabilityError",
    "MissingExtraError",
    "ModeNeedsEmbeddingsError",
    "ModelIntegrityError",
    "ModelServerError",
    "ModelServerResponseError",
    "ModelServerStatusError",
    "ModelServerTimeoutError",
    "ModelServerUnreachableError",
    "PgVectorStore",
    "PostgresChunkStore",
    "PostgresEventLog",
    "PostgresGraphStore",
    "PostgresStores",
    "ReciprocalRankFusion",
    "RedstringError",
    "Refusal",
    "RefusedCompletionError",
    "Relationship",
    "RelationshipId",
    "RetrievalMode",
    "RetrievalResult",
    "Retriever",
    "SchemaMigrationRequiredError",
    "SchemaTooNewError",
    "SchemaVersionError",
    "ScoredChunk",
    "ScoredEntity",
    "SemanticChunkSource",
    "SlidingWindowChunker",
    "SourceDocument",
    "SqliteChunkStore",
    "SqliteEventLog",
    "SqliteGraphStore",
    "SqliteStores",
    "SqliteVectorStore",
    "StoreError",
    "StoreOpener",
    "StoreSet",
    "StoreOperationError",
    "StoreUnavailableError",
    "StoredChunk",
    "TenantCatalogue",
    "TenantId",
    "TextSpan",
    "UnknownDomainError",
    "UnknownEntityError",
    "VectorMatch",
    "VectorPurge",
    "VectorRecord",
    "VectorSearcher",
    "VectorStore",
    "VectorWriter",
    "build_graph",
    "catch_up_stores",
    "chunk_id_for",
    "entity_id_for",
    "index_documents",
    "new_tenant_id",
    "open_postgres",
    "open_sqlite",
    "rank_chunks",
    "rebuild_stores",
    "relationship_id_for",
    "tenant_id_for",
    "tokenize",
    "undo_merge",
    "BlockingIndexMaintenance",
    "RekeyReport",
    "rekey_graph",
}


def test_all_is_exactly_the_supported_names() -> None:
    assert set(redstring.__all__) == EXPECTED
    assert len(redstring.__all__) == len(EXPECTED)  # no name listed twice


def test_every_exported_name_resolves() -> None:
    missing = [name for name in redstring.__all__ if not hasattr(redstring, name)]
    assert missing == []


def _is_redstring_defined(obj: object) -> bool:
    return (getattr(obj, "__module__", None) or "").split(".")[0] == "redstring"


def _named_types(hint: object) -> Iterator[object]:
    """Every class or NewType named in `hint`, through unions and generics."""
    if isinstance(hint, typing.NewType | type):
        yield hint
    for arg in typing.get_args(hint):
        yield from _named_types(arg)
    origin = typing.get_origin(hint)
    if origin is not None and origin not in (typing.Union, types.UnionType):
        yield origin


def _hints(obj: Callable[..., object] | type) -> dict[str, object]:
    # PEP 695 type parameters (`def read[T](...)`) are not module globals, so
    # string annotations naming them resolve only with the function's own.
    params = {param.__name__: param for param in getattr(obj, "__type_params__", ())}
    return typing.get_type_hints(obj, localns=params)


def _signature_hints(obj: object) -> Iterator[tuple[str, object]]:
    if inspect.isfunction(obj):
        for name, hint in _hints(obj).items():
            yield f"{obj.__qualname__}:{name}", hint
        return
    if not isinstance(obj, type):
        return
    for klass in obj.__mro__:
        if not _is_redstring_defined(klass):
            continue
        for name, hint in typing.get_type_hints(klass).items():
            if not name.startswith("_"):
                yield f"{klass.__qualname__}.{name}", hint
        for name, member in vars(klass).items():
            if name.startswith("_") and name != "__init__":
                continue
            target = member.fget if isinstance(member, property) else member
            if isinstance(target, classmethod | staticmethod):
                target = target.__func__
            if inspect.isfunction(target):
                for param, hint in _hints(target).items():
                    yield f"{klass.__qualname__}.{name}:{param}", hint


def test_every_redstring_type_named_in_an_exported_signature_is_exported() -> None:
    exported = {id(getattr(redstring, name)) for name in redstring.__all__}
    leaks: set[str] = set()
    for name in redstring.__all__:
        for where, hint in _signature_hints(getattr(redstring, name)):
            for named in _named_types(hint):
                if _is_redstring_defined(named) and id(named) not in exported:
                    leaks.add(f"{where} names {named!r}")
    assert sorted(leaks) == []


def test_the_closure_check_sees_a_type_that_is_not_exported() -> None:
    """The check above can fail: a non-exported redstring type is found in a signature."""
    from redstring.domain.retrieval import ScoredEntity  # noqa: PLC0415 - the point

    named = {
        named
        for _, hint in _signature_hints(redstring.RetrievalResult)
        for named in _named_types(hint)
    }
    assert ScoredEntity in named
    assert redstring.Entity in {
        n for _, h in _signature_hints(ScoredEntity) for n in _named_types(h)
    }
    assert redstring.TenantId in {
        n for _, h in _signature_hints(redstring.Retriever) for n in _named_types(h)
    }
