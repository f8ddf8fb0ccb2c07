"""Every error redstring raises on purpose, in one tree (ADR 0140).

Catch `RedstringError` for all of them, or a family base for one family:

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
    ├── the client and the command line over it:
    │   ├── DatabaseNotFoundError (FileNotFoundError): a read of a file that does not exist
    │   ├── DocumentPathError (FileNotFoundError), NoDocumentsError (ValueError): paths
    │   ├── MissingSettingError (ValueError): a provider chosen without a setting it needs
    │   ├── ChunkStoreUnavailableError: a backend without a persistent chunk store
    │   ├── EventLogUnavailableError: undo or rebuild over stores without an event log
    │   ├── ClientClosedError (RuntimeError): a client used after `close()`
    │   └── PandasMissingError (ImportError): `to_pandas()` without pandas
    └── StoreError: a store or its database
        ├── StoreUnavailableError
        │   └── DatabaseOpenError: a file that cannot be opened at all
        ├── StoreOperationError
        ├── ReadOnlyDatabaseError
        ├── DimensionRequiredError (ValueError)
        ├── ForeignDatabaseError: another application's SQLite file
        ├── ForeignSchemaError: another application's PostgreSQL schema
        ├── CorruptSettingError: a stored setting redstring never writes
        ├── AnalysisMismatchError (ValueError): another language than the index was built in
        └── SchemaVersionError
            ├── SchemaTooNewError
            └── SchemaMigrationRequiredError

Classes marked with a builtin also derive from it, so code written against
the builtin keeps working. Errors are defined in the domain layer
(`redstring.domain.errors`, whose `__all__` is the one list) so every layer
can raise them; import them from here. `RedstringError` is also at the root.
"""

from __future__ import annotations

from redstring.domain import errors as _errors
from redstring.domain.errors import *  # noqa: F403 - the namespace is the domain's one list

__all__: list[str] = []
__all__ += _errors.__all__
