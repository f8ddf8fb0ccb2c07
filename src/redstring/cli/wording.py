"""Errors in the command's words: the library's setting names become the flags that set them.

The library's messages name what a caller can change as a backticked
argument (`timeout`, `max_failed_share=1`); on the command line those are
flags (`--llm-timeout`, `--max-failed-share 1`, `--root`). Which flag depends on the
model that failed: `build` has a language model and maybe an embedding
server, the other commands only the latter. A name with no flag stays as it is.
A backticked call of the Python client (`describe()`) becomes the command
that shows the same, and an `InvalidArgumentError` naming an argument a flag
sets (`encoding='bogus' is not allowed`) is said of the flag.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from redstring.domain.errors import CompletionError, InvalidArgumentError, ModelServerError

#: The settings of reading documents, as `index` and `build` set them; the
#: arguments of the other commands; and the Python calls a command stands for.
DOCUMENT_FLAGS: Mapping[str, str] = {
    "root": "--root",
    "encoding": "--encoding",
    "document_id": "DOCUMENT",
    "db": "--db",
    "tenant": "--tenant",
    "describe()": "redstring passages QUERY",
}

#: The language model's settings, as `build` sets them.
LLM_FLAGS: Mapping[str, str] = {
    **DOCUMENT_FLAGS,
    "base_url": "--llm-base-url",
    "model": "--llm-model",
    "api_key": "--api-key",
    "timeout": "--llm-timeout",
    "max_concurrency": "--llm-concurrency",
    "max_attempts": "--llm-attempts",
    "max_tokens": "--max-tokens",
    "structured_output": "--structured-output",
    "max_failed_share": "--max-failed-share",
    "pair_questions": "--pair-questions",
}

#: The embedding server's settings, as every command sets them.
EMBEDDING_FLAGS: Mapping[str, str] = {
    **DOCUMENT_FLAGS,
    "base_url": "--embed-base-url",
    "model": "--embed-model",
    "api_key": "--api-key",
}

_NAMED = re.compile(r"`(\w+(?:\(\))?)(?:=([^`]*))?`")


def flags_for(command: str, error: BaseException, llm_model: str | None) -> Mapping[str, str]:
    """The flags an error of `command` can name: the language model's when it is the one
    that failed (`llm_model` is its name), else the embedding server's."""
    if command != "build":
        return EMBEDDING_FLAGS
    if isinstance(error, ModelServerError | CompletionError) and error.model != llm_model:
        return EMBEDDING_FLAGS
    return LLM_FLAGS


def in_flags(text: str, flags: Mapping[str, str]) -> str:
    """`text` with each backticked setting of `flags` written as its flag (and value)."""

    def flag(match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2)
        if name not in flags:
            return match.group(0)
        return flags[name] if value is None else f"{flags[name]} {value.strip(chr(39) + '"')}"

    return _NAMED.sub(flag, text)


def named_by_flag(error: BaseException, flags: Mapping[str, str]) -> BaseException:
    """`error`, or, when it is an `InvalidArgumentError` in the library's own words about an
    argument one of `flags` sets, the same refusal said of the flag (`--encoding bogus`)."""
    if not isinstance(error, InvalidArgumentError) or error.name not in flags:
        return error
    name, value, requirement = error.name, error.value, error.requirement
    if str(error) != f"{name}={value!r} is not allowed: {name} must be {requirement}.":
        return error  # a message of its own: its backticked names are mapped as they are
    flag = flags[name]
    plain = isinstance(value, str) and value != "" and value.split() == [value]
    shown = value if plain else repr(value)  # as typed, or quoted when blank or spaced
    return InvalidArgumentError(
        name=flag,
        value=value,
        requirement=requirement,
        message=f"{flag} {shown} is not allowed: {flag} must be {requirement}.",
    )
