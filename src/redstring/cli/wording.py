"""Errors in the command's words: the library's setting names become the flags that set them.

The library's messages name what a caller can change as a backticked
argument (`timeout`, `max_failed_share=1`); on the command line those are
flags (`--llm-timeout`, `--max-failed-share 1`, `--root`). Which flag depends on the
model that failed: `build` has a language model and maybe an embedding
server, the other commands only the latter. A name with no flag stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from redstring.domain.errors import CompletionError, ModelServerError

#: The settings of reading documents, as `index` and `build` set them.
DOCUMENT_FLAGS: Mapping[str, str] = {"root": "--root"}

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

_NAMED = re.compile(r"`(\w+)(?:=([^`]*))?`")


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
