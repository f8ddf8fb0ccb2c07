"""One retry policy and one error translation for every OpenAI-protocol call.

`OpenAITransport.call` runs an SDK call under a per-provider concurrency
limit and retries it on HTTP 429, 5xx and timeouts with exponential backoff
and jitter, up to `max_attempts` attempts. Everything else fails at once, and
so do the statuses a caller names final (a refused request shape is not
transient). A timeout of a request that shared the server with others is
queueing, not the model's time: it halves the limit and is tried again
without being charged as an attempt, up to `max_attempts` times (ADR 0151).
SDK exceptions never leave this module: they become the `ModelServerError`
family (`ModelServerStatusError`, `ModelServerTimeoutError`,
`ModelServerUnreachableError` or `ModelServerResponseError`). The SDK's own
retries are off (ADR 0050).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import textwrap
from collections.abc import Awaitable, Callable, Collection
from typing import TYPE_CHECKING, Any

from redstring.domain.errors import (
    InvalidSettingError,
    MissingExtraError,
    ModelServerResponseError,
    ModelServerStatusError,
    ModelServerTimeoutError,
    ModelServerUnreachableError,
)
from redstring.llm._concurrency import AdaptiveLimit

if TYPE_CHECKING:
    from openai import AsyncOpenAI

_log = logging.getLogger("redstring.llm")

_NO_KEY = "no-key"  # sent when the caller gives none, so the SDK never reads OPENAI_API_KEY


def backoff_delay(attempt: int, *, initial: float, maximum: float, rng: random.Random) -> float:
    """Seconds to wait after failed attempt `attempt` (1-based): equal jitter.

    The cap doubles per attempt from `initial` up to `maximum`; the delay is
    half the cap plus a uniform draw over the other half, so it lies in
    [cap/2, cap].
    """
    cap = min(maximum, initial * 2.0 ** (attempt - 1))
    return cap / 2 + rng.uniform(0.0, cap / 2)


def require_positive(name: str, value: float) -> None:
    """Raise `InvalidSettingError` unless `value` > 0."""
    if not value > 0:
        raise InvalidSettingError(name=name, value=value, requirement="greater than 0")


class OpenAITransport:
    """An `AsyncOpenAI` client (built on first use) with one retry policy.

    One transport per provider and per event loop. `max_concurrency` bounds
    the requests in flight (the limit adapts below it, see the module); a
    request waiting to be retried holds no slot. `close()` closes the client.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None,
        timeout: float,
        max_concurrency: int,
        max_attempts: int,
        initial_backoff: float,
        max_backoff: float,
        seed: int | None = None,
    ) -> None:
        for name, value in (
            ("timeout", timeout),
            ("max_concurrency", max_concurrency),
            ("max_attempts", max_attempts),
            ("initial_backoff", initial_backoff),
            ("max_backoff", max_backoff),
        ):
            require_positive(name, value)
        if api_key and not (api_key.isascii() and api_key.isprintable()):
            # httpx would raise UnicodeEncodeError (a ValueError) on the first call
            raise InvalidSettingError(
                name="api_key",
                value="<hidden>",
                requirement="printable ASCII (check for a pasted quote, dash or line break)",
                message="api_key holds a character an HTTP header cannot carry: it must be "
                "printable ASCII (check for a pasted quote, dash or line break).",
            )
        self.base_url = base_url
        self.model = model
        self._api_key = api_key if api_key else _NO_KEY
        self._timeout = timeout
        self._max_attempts = max_attempts
        self._initial_backoff = initial_backoff
        self._max_backoff = max_backoff
        self.limit = AdaptiveLimit(max_concurrency, window=timeout)
        self._rng = random.Random(seed)
        self._client: AsyncOpenAI | None = None
        #: How the transport waits between attempts (a test replaces it to read the delays).
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def _get_client(self) -> AsyncOpenAI:
        if self._client is None:
            try:
                import openai  # noqa: PLC0415 (the extra is optional; ADR 0050)
            except ImportError as error:
                raise MissingExtraError(extra="openai", missing="the openai package") from error
            self._client = openai.AsyncOpenAI(
                base_url=self.base_url,
                api_key=self._api_key,
                timeout=self._timeout,
                max_retries=0,
            )
        return self._client

    async def close(self) -> None:
        """Close the SDK client, if one was built; the next call builds a new one."""
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    async def call[T](
        self,
        operation: Callable[[AsyncOpenAI], Awaitable[T]],
        *,
        final_statuses: Collection[int] = (),
    ) -> T:
        """`operation(client)`, retried on 429 / 5xx / timeout; errors translated.

        A status in `final_statuses` fails at once, even a 5xx.
        """
        client = self._get_client()
        import openai  # noqa: PLC0415 (present: _get_client raised otherwise)

        attempt = queued = 0
        while True:
            retry_after: float | None = None
            company = 0
            try:
                async with self.limit.slot() as company:
                    answer = await operation(client)
                self.limit.succeeded()
                if isinstance(answer, str):  # the SDK hands back a body not labelled JSON as text
                    raise ModelServerResponseError(
                        base_url=self.base_url,
                        model=self.model,
                        detail=f"a body that is not JSON: {answer[:80]!r}",
                    )
                return answer
            except openai.APITimeoutError as error:
                if company > 0 and queued < self._max_attempts:
                    queued += 1
                    self.limit.shed()
                    _log.warning(
                        "%s (model %r): a request queued behind %d others timed out; "
                        "concurrency lowered to %d, tried again",
                        self.base_url,
                        self.model,
                        company,
                        self.limit.limit,
                    )
                    continue
                attempt += 1
                if attempt >= self._max_attempts:
                    raise ModelServerTimeoutError(
                        base_url=self.base_url,
                        model=self.model,
                        timeout=self._timeout,
                        attempts=attempt,
                    ) from error
            except openai.APIConnectionError as error:
                raise ModelServerUnreachableError(
                    base_url=self.base_url, model=self.model, detail=_cause(error)
                ) from error
            except openai.APIStatusError as error:
                attempt += 1
                status = error.status_code
                retryable = (status == 429 or status >= 500) and status not in final_statuses
                if not retryable or attempt >= self._max_attempts:
                    message = _server_message(error)
                    raise ModelServerStatusError(
                        base_url=self.base_url,
                        model=self.model,
                        status=status,
                        server_message=message,
                        attempts=attempt,
                        hint=_hint(status, message),
                    ) from error
                retry_after = _retry_after(error)
            except openai.APIResponseValidationError as error:
                raise ModelServerResponseError(
                    base_url=self.base_url, model=self.model, detail=str(error)
                ) from error
            except json.JSONDecodeError as error:  # a body the SDK could not read as JSON
                raise ModelServerResponseError(
                    base_url=self.base_url, model=self.model, detail=f"not JSON ({error})"
                ) from error
            delay = backoff_delay(
                attempt, initial=self._initial_backoff, maximum=self._max_backoff, rng=self._rng
            )
            if retry_after is not None:
                delay = max(delay, min(retry_after, self._max_backoff))
            await self.sleep(delay)


def _cause(error: BaseException) -> str:
    """The innermost cause's text: the SDK's own message is only 'Connection error.'."""
    while error.__cause__ is not None:
        error = error.__cause__
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


#: The characters of a server's message an error quotes.
SERVER_MESSAGE_CHARACTERS = 300


def _server_message(error: Any) -> str:
    """The server's own words, short: the body's "error" member if any, else its text.

    A Python traceback is reduced to its last line (the exception), which
    says what went wrong; the frames are in the server's log. The rest is
    cut at a word, `SERVER_MESSAGE_CHARACTERS` at most.
    """
    body = error.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        text = str(body["message"])
    elif isinstance(body, str) and body:
        text = body
    else:
        text = str(error.response.text or error.message)
    if "Traceback (most recent call last)" in text:
        last = [line for line in text.splitlines() if line.strip()][-1]
        text = f"{last.strip()} (the traceback is in the server's log)"
    return textwrap.shorten(text, width=SERVER_MESSAGE_CHARACTERS, placeholder=" ...")


def _retry_after(error: Any) -> float | None:
    value = error.response.headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _hint(status: int, message: str) -> str:
    if status in (401, 403):
        return "Check `api_key` and that this key may use this model."
    if status == 404:
        return "Check `model` (the server's own name for it) and that `base_url` ends in /v1."
    if status == 429 or status >= 500:
        return "The server kept failing: retry later, or lower `max_concurrency`."
    return "Fix the request the message describes; retrying the same request will not help."
