"""Every error the library raises on purpose derives from `RedstringError`.

One error per cause. Each carries the fields a caller needs to act on it, and
its message says what went wrong and what to do about it. The families live
in submodules; `redstring.errors` is the public namespace and draws the tree.
"""

from __future__ import annotations

from redstring.domain.errors.arguments import (
    ChunkSourceMismatchError,
    DimensionMismatchError,
    DuplicateDocumentError,
    IncompleteVectorSetupError,
    InvalidArgumentError,
    InvalidSettingError,
    InvalidVectorError,
    MissingCapabilityError,
    MissingExtraError,
    ModeNeedsEmbeddingsError,
    UnknownDomainError,
    UnknownEntityError,
)
from redstring.domain.errors.base import (
    RedstringError,
)
from redstring.domain.errors.building import (
    BuildFailedError,
    ChunkExtractionError,
    DomainClassificationError,
    MergeAlreadyUndoneError,
    MergeNotFoundError,
    MergeNotUndoableError,
)
from redstring.domain.errors.client import (
    ChunkStoreUnavailableError,
    ClientClosedError,
    DatabaseNotFoundError,
    DocumentPathError,
    MissingSettingError,
    NoDocumentsError,
    PandasMissingError,
)
from redstring.domain.errors.models import (
    CompletionError,
    EmptyCompletionError,
    MalformedCompletionError,
    ModelIntegrityError,
    ModelServerError,
    ModelServerResponseError,
    ModelServerStatusError,
    ModelServerTimeoutError,
    ModelServerUnreachableError,
    RefusedCompletionError,
    ScriptExhaustedError,
    TruncatedCompletionError,
)
from redstring.domain.errors.stores import (
    CorruptSettingError,
    DatabaseOpenError,
    DimensionRequiredError,
    ForeignDatabaseError,
    InconsistentCorpusError,
    ReadOnlyDatabaseError,
    SchemaMigrationRequiredError,
    SchemaTooNewError,
    SchemaVersionError,
    StoreError,
    StoreOperationError,
    StoreUnavailableError,
)

__all__ = [
    "BuildFailedError",
    "ChunkExtractionError",
    "ChunkSourceMismatchError",
    "ChunkStoreUnavailableError",
    "ClientClosedError",
    "CompletionError",
    "CorruptSettingError",
    "DatabaseNotFoundError",
    "DatabaseOpenError",
    "DimensionMismatchError",
    "DimensionRequiredError",
    "DocumentPathError",
    "DomainClassificationError",
    "DuplicateDocumentError",
    "EmptyCompletionError",
    "ForeignDatabaseError",
    "IncompleteVectorSetupError",
    "InconsistentCorpusError",
    "InvalidArgumentError",
    "InvalidSettingError",
    "InvalidVectorError",
    "MalformedCompletionError",
    "MergeAlreadyUndoneError",
    "MergeNotFoundError",
    "MergeNotUndoableError",
    "MissingCapabilityError",
    "MissingExtraError",
    "MissingSettingError",
    "ModeNeedsEmbeddingsError",
    "ModelIntegrityError",
    "ModelServerError",
    "ModelServerResponseError",
    "ModelServerStatusError",
    "ModelServerTimeoutError",
    "ModelServerUnreachableError",
    "NoDocumentsError",
    "PandasMissingError",
    "ReadOnlyDatabaseError",
    "RedstringError",
    "RefusedCompletionError",
    "SchemaMigrationRequiredError",
    "SchemaTooNewError",
    "SchemaVersionError",
    "ScriptExhaustedError",
    "StoreError",
    "StoreOperationError",
    "StoreUnavailableError",
    "TruncatedCompletionError",
    "UnknownDomainError",
    "UnknownEntityError",
]
