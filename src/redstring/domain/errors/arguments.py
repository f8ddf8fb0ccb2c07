"""Bad arguments and settings given to a public call: fix the call."""

from __future__ import annotations

from typing import Literal

from redstring.domain.errors.base import RedstringError


class InvalidArgumentError(RedstringError, ValueError):
    """A value given to a public call is outside what it accepts.

    `name` is the argument (or setting, flag or environment variable) and the
    message says what it must be. `message` replaces the generated sentence
    where a shorter one reads better (a blank query).
    """

    def __init__(
        self, *, name: str, value: object, requirement: str, message: str | None = None
    ) -> None:
        self.name = name
        self.value = value
        self.requirement = requirement
        super().__init__(
            message or f"{name}={value!r} is not allowed: {name} must be {requirement}."
        )


class NotFoundError(RedstringError, LookupError):
    """A call named something (an entity, a domain, a merge, a file) that does not exist."""


class DimensionMismatchError(InvalidArgumentError):
    """Two vector dimensions that must agree do not.

    Raised when an embedding provider and a store disagree (at construction,
    before any text is embedded) and when a vector of the wrong length reaches
    a store. `context` names what was being compared.
    """

    def __init__(
        self,
        *,
        expected: int,
        actual: int,
        context: str,
        name: str = "dimension",
        message: str | None = None,
    ) -> None:
        self.expected = expected
        self.actual = actual
        self.context = context
        super().__init__(
            name=name,
            value=actual,
            requirement=str(expected),
            message=message
            or f"{context}: expected dimension {expected}, got {actual}. "
            "Use an embedding model and a store created with the same dimension.",
        )


class ModelDimensionMismatchError(DimensionMismatchError):
    """The embedding model makes vectors of another length than the database holds.

    Raised for a search that embeds its query (semantic or hybrid; a lexical
    one needs no model), and by the MCP server at start-up. `expected` is the
    database's dimension, `actual` the model's; `name` is `embeddings`, and
    `fix` says how to choose the model in the caller's terms (the client's
    argument from Python, the flags from the command line).
    """

    def __init__(self, *, stored: int, model: int, fix: str) -> None:
        self.fix = fix
        super().__init__(
            expected=stored,
            actual=model,
            context="the embedding model against the database",
            name="embeddings",
            message=f"the database holds {stored}-dimension vectors and the embedding model "
            f"makes {model}-dimension ones, so a search cannot compare them. {fix}",
        )


class EmbeddingModelMismatchError(InvalidArgumentError):
    """The embedding model is none of the models that embedded the stored passages or entities.

    Raised for a passage or entity search that embeds its query (semantic or
    hybrid; a lexical one needs no model), and by the MCP server at start-up:
    its vectors would be compared with another model's, which ranks at
    random even at the same dimension. `stored` maps each model that
    embedded the tenant's `items` (`"passages"` or `"entities"`) to how many
    it embedded, `model` is the provider's; `name` is `embeddings`, and `fix`
    says how to choose the model in the caller's terms.
    """

    def __init__(
        self,
        *,
        stored: dict[str, int],
        model: str,
        fix: str,
        items: Literal["passages", "entities"] = "passages",
    ) -> None:
        self.stored = dict(stored)
        self.model = model
        self.fix = fix
        self.items = items
        one = "passage" if items == "passages" else "entity"
        listed = ", ".join(
            f"{name} ({count} {one if count == 1 else items})"
            for name, count in sorted(stored.items(), key=lambda item: (-item[1], item[0]))
        )
        super().__init__(
            name="embeddings",
            value=model,
            requirement=f"one of the models that embedded the {items}: {', '.join(stored)}",
            message=f"the {items} of this tenant were embedded by {listed}, and the "
            f"embedding model is {model}, so a semantic or hybrid search would compare "
            f"vectors of different models. {fix}",
        )


class InvalidVectorError(InvalidArgumentError):
    """A vector with no direction (all zeros) or a non-finite component."""

    def __init__(self, *, context: str) -> None:
        self.context = context
        super().__init__(
            name="vector",
            value=context,
            requirement="finite and not all zeros",
            message=f"{context}: the vector is all zeros or holds NaN/infinity, so its cosine "
            "is undefined. Check the embedding model's output.",
        )


class MissingCapabilityError(InvalidArgumentError, TypeError):
    """A collaborator handed to a composed component lacks a method it needs.

    Raised at construction, before any query runs. `role` is the argument the
    object was passed as; `missing` lists the methods it does not have.
    """

    def __init__(self, *, role: str, given: object, missing: list[str], needed: str) -> None:
        self.role = role
        self.missing = missing
        super().__init__(
            name=role,
            value=given,
            requirement=needed,
            message=f"{role}={type(given).__name__} lacks {', '.join(missing)}. "
            f"Pass {needed} for {role}.",
        )


class ChunkSourceMismatchError(InvalidArgumentError):
    """A chunk handed to `replace_source` belongs to another source or tenant."""

    def __init__(
        self, *, chunk_source: str, chunk_tenant: object, source_id: str, tenant_id: object
    ) -> None:
        self.source_id = source_id
        self.tenant_id = tenant_id
        super().__init__(
            name="chunks",
            value=chunk_source,
            requirement=f"chunks of source {source_id!r} in tenant {tenant_id}",
            message=f"a chunk of source {chunk_source!r} in tenant {chunk_tenant} was given to "
            f"replace source {source_id!r} in tenant {tenant_id}; nothing was written. Pass "
            "only the chunks of the source being replaced.",
        )


class DuplicateDocumentError(InvalidArgumentError):
    """One call (`index_documents` or `build_graph`) was given two documents with one id.

    Raised before anything is written: the second would silently replace the
    first's chunks.
    """

    def __init__(self, *, document_id: str) -> None:
        self.document_id = document_id
        super().__init__(
            name="documents",
            value=document_id,
            requirement="documents with distinct ids",
            message=f"document id {document_id!r} appears more than once in one call; nothing "
            "was written. Give each document a distinct id, join their text, or pass the "
            "versions in separate calls.",
        )


class InvalidSettingError(InvalidArgumentError):
    """A provider setting, command-line flag or environment variable of the wrong form."""


class ModeNeedsEmbeddingsError(InvalidArgumentError):
    """A semantic or hybrid search was asked for with no embedding provider.

    `fix` says how to provide one where the search was asked (a constructor
    from Python, a flag from the command line).
    """

    def __init__(self, *, mode: str, fix: str) -> None:
        self.mode = mode
        super().__init__(
            name="mode",
            value=mode,
            requirement="lexical when no embedding provider is configured",
            message=f"{mode} retrieval needs an embedding provider, and none is configured. {fix}",
        )


class IncompleteVectorSetupError(InvalidArgumentError):
    """An embedding provider was given without a vector store, or the reverse."""

    def __init__(self, *, missing: str) -> None:
        self.missing = missing
        super().__init__(
            name=missing,
            value=None,
            requirement="given together with the other half (embeddings and vectors)",
            message=f"build_graph was given half of the vector setup: {missing} is missing. "
            "Pass both embeddings and vectors, or neither.",
        )


class UnknownEntityError(NotFoundError):
    """An operation named an entity the store does not hold for that tenant."""

    def __init__(self, *, entity_id: object, tenant_id: object) -> None:
        self.entity_id = entity_id
        self.tenant_id = tenant_id
        super().__init__(
            f"entity {entity_id} does not exist in tenant {tenant_id}. "
            "Check the id and the tenant; ids are only meaningful within their tenant."
        )


class UnknownDomainError(NotFoundError):
    """A domain schema was asked for by a name no bundled or given schema has."""

    def __init__(self, *, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(
            f"no domain schema is named {name!r}. Use one of {', '.join(known)}, pass a "
            "DomainSchema, or pass AUTO to let the model choose."
        )


class MissingExtraError(RedstringError, ImportError):
    """Something optional (a provider, the PostgreSQL stores, the MCP server) lacks its extra."""

    def __init__(self, *, extra: str, missing: str, message: str | None = None) -> None:
        self.extra = extra
        self.missing = missing
        super().__init__(
            message
            or f"this needs {missing} (the `{extra}` extra), which is not installed. "
            f"Install the extra: pip install 'redstring[{extra}]'."
        )
