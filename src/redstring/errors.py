"""Every error redstring raises on purpose, in one tree (ADR 0140).

Catch `RedstringError` for all of them, or a family base for one family::

    RedstringError
    ├── InvalidArgumentError (ValueError): a value a public call does not accept
    │   └── InvalidSettingError: a provider setting, CLI flag or environment variable
    ├── DimensionMismatchError, InvalidVectorError: vectors that do not fit
    ├── DuplicateDocumentError, ChunkSourceMismatchError: documents a call cannot take
    ├── ModeNeedsEmbeddingsError: semantic/hybrid asked of a lexical-only setup
    ├── MissingCapabilityError, IncompleteVectorSetupError, MissingExtraError: wiring
    ├── UnknownEntityError, UnknownDomainError: a name the store or registry lacks
    ├── ModelServerError: no usable answer from a model server
    │   ├── ModelServerStatusError: an error status (4xx at once, 429/5xx when spent)
    │   ├── ModelServerTimeoutError
    │   ├── ModelServerUnreachableError
    │   └── ModelServerResponseError: a 200 the protocol does not allow
    ├── CompletionError: a model's answer could not be used
    │   ├── EmptyCompletionError
    │   ├── RefusedCompletionError
    │   ├── MalformedCompletionError
    │   └── TruncatedCompletionError
    ├── ModelIntegrityError, ScriptExhaustedError: bundled and scripted models
    ├── ChunkExtractionError, BuildFailedError, DomainClassificationError: building
    ├── MergeNotFoundError, MergeAlreadyUndoneError, MergeNotUndoableError: undo
    ├── InconsistentCorpusError: a chunk store contradicting itself (an adapter bug)
    └── StoreError: a store or its database
        ├── StoreUnavailableError
        │   └── DatabaseOpenError: a file that cannot be opened at all
        ├── StoreOperationError
        ├── ReadOnlyDatabaseError
        ├── DimensionRequiredError (ValueError)
        ├── ForeignDatabaseError: another application's SQLite file
        ├── CorruptSettingError: a stored setting redstring never writes
        └── SchemaVersionError
            ├── SchemaTooNewError
            └── SchemaMigrationRequiredError

Classes marked (ValueError) also derive from that builtin, so code written
against the builtin keeps working. The command line adds its own few causes
(a missing file, a missing flag) in `redstring.client.errors`; they derive from
`RedstringError` too. Errors are defined in the domain layer
(`redstring.domain.errors`) so every layer can raise them; import them from here.
"""

from __future__ import annotations

from redstring.domain.errors import (
    BuildFailedError,
    ChunkExtractionError,
    ChunkSourceMismatchError,
    CompletionError,
    CorruptSettingError,
    DatabaseOpenError,
    DimensionMismatchError,
    DimensionRequiredError,
    DomainClassificationError,
    DuplicateDocumentError,
    EmptyCompletionError,
    ForeignDatabaseError,
    IncompleteVectorSetupError,
    InconsistentCorpusError,
    InvalidArgumentError,
    InvalidSettingError,
    InvalidVectorError,
    MalformedCompletionError,
    MergeAlreadyUndoneError,
    MergeNotFoundError,
    MergeNotUndoableError,
    MissingCapabilityError,
    MissingExtraError,
    ModelIntegrityError,
    ModelServerError,
    ModelServerResponseError,
    ModelServerStatusError,
    ModelServerTimeoutError,
    ModelServerUnreachableError,
    ModeNeedsEmbeddingsError,
    ReadOnlyDatabaseError,
    RedstringError,
    RefusedCompletionError,
    SchemaMigrationRequiredError,
    SchemaTooNewError,
    SchemaVersionError,
    ScriptExhaustedError,
    StoreError,
    StoreOperationError,
    StoreUnavailableError,
    TruncatedCompletionError,
    UnknownDomainError,
    UnknownEntityError,
)

__all__ = [
    "BuildFailedError",
    "ChunkExtractionError",
    "ChunkSourceMismatchError",
    "CompletionError",
    "CorruptSettingError",
    "DatabaseOpenError",
    "DimensionMismatchError",
    "DimensionRequiredError",
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
    "ModeNeedsEmbeddingsError",
    "ModelIntegrityError",
    "ModelServerError",
    "ModelServerResponseError",
    "ModelServerStatusError",
    "ModelServerTimeoutError",
    "ModelServerUnreachableError",
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
