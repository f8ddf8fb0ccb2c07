"""What a build checks before its first chunk and after its last.

Before: the model server answers and knows the model (`preflight`), so a
wrong URL, model name or missing extra fails once, loudly, instead of once
per chunk. After: no more than `max_failed_share` of the chunks failed
(`require_enough_chunks`), so a build that extracted nothing is an error,
not a report with a count in it. Both are the library's, so every caller
(the command line, the client) fails the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from redstring.domain.errors import BuildFailedError, InvalidArgumentError
from redstring.domain.validation import require_count, require_share, require_storable_text
from redstring.extraction.domains import AutoDomain, DomainSchema, resolve_domain
from redstring.extraction.extractor import ChunkFailure
from redstring.ports.llm_provider import CheckedLlmProvider, LlmProvider

#: Default for `build_graph(max_failed_share=...)`: more than half failing is an error.
DEFAULT_MAX_FAILED_SHARE = 0.5


async def preflight(provider: LlmProvider) -> None:
    """Check the model server before any chunk, when the provider can check it.

    Raises what `CheckedLlmProvider.check` raises (`MissingExtraError`,
    `ModelServerUnreachableError`, `ModelServerError`, ...). A provider that
    cannot check (a scripted one) passes.
    """
    if isinstance(provider, CheckedLlmProvider):
        await provider.check()


def answer_format(provider: LlmProvider) -> str | None:
    """How `provider` asks its server for JSON, when it says; else `None`."""
    return provider.answer_format if isinstance(provider, CheckedLlmProvider) else None


def check_build_arguments(
    *, max_failed_share: object, pair_questions: object, domain: object
) -> None:
    """Refuse a build's own arguments before any server or store is touched.

    `max_failed_share` must be a number on 0..1 and `pair_questions` a whole
    number of zero or more (neither a `str` nor a `bool`), else
    `InvalidArgumentError` naming it; `domain` must be a `DomainSchema`, `AUTO`
    or a bundled schema's name (`UnknownDomainError` for another name), and a
    `DomainSchema`'s types hold no NUL (no store keeps one as a type). The
    client calls this before it checks the model server; `build_graph` too.
    """
    require_share("max_failed_share", max_failed_share)
    require_count("pair_questions", pair_questions)
    if isinstance(domain, DomainSchema):
        for field in ("entity_types", "relationship_types"):
            for index, kind in enumerate(getattr(domain, field)):
                require_storable_text(f"domain.{field}[{index}]", kind)
        return
    if isinstance(domain, AutoDomain):
        return
    if not isinstance(domain, str):
        raise InvalidArgumentError(
            name="domain",
            value=domain,
            requirement=f"a DomainSchema, AUTO or a bundled schema's name, not "
            f"{type(domain).__name__}",
        )
    resolve_domain(domain)


def check_build_model(model: object, base_url: str | None) -> None:
    """Refuse a `model` that is neither a model name nor an `LlmProvider`, and a model name
    without the `base_url` of the server that serves it (`InvalidArgumentError`)."""
    if not isinstance(model, str | LlmProvider):
        raise InvalidArgumentError(
            name="model",
            value=model,
            requirement="a model name the server at base_url serves, or an LlmProvider "
            "(an object with an async complete_json)",
        )
    if isinstance(model, str) and base_url is None:
        raise InvalidArgumentError(
            name="base_url",
            value=None,
            requirement="the server's URL (e.g. http://localhost:8000/v1) with a model name",
        )


def failure_causes(failures: Sequence[ChunkFailure]) -> dict[str, int]:
    """Failed chunks counted by error class, most frequent first (ties by name)."""
    counts = Counter(failure.error_type for failure in failures)
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def require_enough_chunks(
    failures: Sequence[ChunkFailure], chunks: int, max_failed_share: float, report: object
) -> None:
    """Raise `BuildFailedError` when more than `max_failed_share` of `chunks` failed.

    With `max_failed_share=1.0` nothing raises (the caller takes partial
    results); with no chunks at all nothing failed.
    """
    if chunks == 0 or len(failures) / chunks <= max_failed_share:
        return
    examples: dict[str, str] = {}
    for failure in failures:
        examples.setdefault(failure.error_type, failure.cause)
    raise BuildFailedError(
        failed=len(failures),
        chunks=chunks,
        max_failed_share=max_failed_share,
        causes=failure_causes(failures),
        examples=examples,
        report=report,
    )
