"""The embedding provider a client is opened with: `"local"`, `"multilingual"`, `"none"`, or one.

`"multilingual"` is the multilingual-e5-small model of the `multilingual`
extra (ADR 0275). The default (`None`) is the local model when the `local`
extra is installed, and no provider otherwise: the same rule as the command line's
`--embeddings`. The provider's dimension is the one a new database is made
with; a database with no provider is made at `UNEMBEDDED_DIMENSION`.
"""

from __future__ import annotations

import importlib.util
import inspect
from typing import Literal

from redstring.domain.errors import InvalidArgumentError, MissingExtraError
from redstring.llm.local_embedding import LocalEmbeddingProvider, packaged_files
from redstring.llm.multilingual_embedding import MultilingualEmbeddingProvider
from redstring.ports.embedding_provider import EmbeddingProvider

#: The vector dimension a database is created with when nothing is embedded:
#: the local model's, so embedding locally later needs no new database.
UNEMBEDDED_DIMENSION = 384

#: What `embeddings=` accepts besides a provider object.
EmbeddingChoice = Literal["local", "multilingual", "none"] | EmbeddingProvider | None


def local_extra_installed() -> bool:
    """Whether the `local` extra's runtime and model packages are importable."""
    if any(importlib.util.find_spec(name) is None for name in ("onnxruntime", "tokenizers")):
        return False
    try:
        packaged_files()
    except MissingExtraError:
        return False
    return True


def resolve_embeddings(
    choice: EmbeddingChoice, *, threads: int | None = None
) -> EmbeddingProvider | None:
    """The provider `choice` names; `None` for `"none"`.

    `threads` is the named model's thread count (`None`: the local model
    uses every core, the multilingual one its own default); a provider
    object is used as it is, so `threads` with one is refused.

    Raises `MissingExtraError` for `"local"` or `"multilingual"` without its extra, and
    `InvalidArgumentError` for any other string, anything else that is not shaped
    like an `EmbeddingProvider` (a provider class rather than an instance, too), or
    a `threads` that is not a count.
    """
    if not (choice is None or isinstance(choice, str)):
        _require_provider(choice)
    _require_threads(threads, choice)
    if choice is None:
        return LocalEmbeddingProvider(threads=threads) if local_extra_installed() else None
    if isinstance(choice, str):
        if choice == "none":
            return None
        if choice == "local":
            return LocalEmbeddingProvider(threads=threads)
        if choice == "multilingual":
            return (
                MultilingualEmbeddingProvider()
                if threads is None
                else MultilingualEmbeddingProvider(threads=threads)
            )
        raise InvalidArgumentError(name="embeddings", value=choice, requirement=_ACCEPTED)
    return choice


#: What `embeddings=` must be, as a refusal says it.
_ACCEPTED = (
    '"local", "multilingual", "none", None for the default, or an EmbeddingProvider '
    "instance (an int `dimension` and async `embed` and `embed_query` methods)"
)


def _require_provider(choice: object) -> None:
    """Refuse `choice` unless it has the provider port's shape, checked member by member.

    The port is `runtime_checkable`, but `isinstance` only asks whether the names
    exist, so a provider class (whose `dimension` is a property object) and an
    object with a blocking `embed` would pass it and fail later, far from here.
    """
    if isinstance(choice, type):
        raise InvalidArgumentError(
            name="embeddings",
            value=choice,
            requirement=_ACCEPTED,
            message=f"embeddings={choice.__name__} is a class, not a provider: "
            f"pass an instance, embeddings={choice.__name__}().",
        )
    flaw = _provider_flaw(choice)
    if flaw is not None:
        raise InvalidArgumentError(
            name="embeddings", value=choice, requirement=f"{_ACCEPTED}; {flaw}"
        )


_MISSING = object()


def _provider_flaw(choice: object) -> str | None:
    """What keeps `choice` from being an `EmbeddingProvider`, or `None` if nothing does."""
    dimension = getattr(choice, "dimension", _MISSING)
    if dimension is _MISSING:
        return f"the {type(choice).__name__} given has no dimension"
    if isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1:
        return f"its dimension is {dimension!r}, not a positive int"
    for method in ("embed", "embed_query"):
        if not inspect.iscoroutinefunction(getattr(choice, method, None)):
            return f"its {method} is not an async method"
    return None


def _require_threads(threads: object, choice: EmbeddingChoice) -> None:
    if threads is None:
        return
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise InvalidArgumentError(
            name="threads", value=threads, requirement="a whole number >= 1, or None for every core"
        )
    if not (choice is None or isinstance(choice, str)):
        raise InvalidArgumentError(
            name="threads",
            value=threads,
            requirement="None with an EmbeddingProvider object: set its own thread count",
        )
