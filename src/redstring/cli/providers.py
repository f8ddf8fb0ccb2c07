"""Choosing the embedding provider and the language model from flags and the environment.

A flag wins over its environment variable; the variable wins over the
default. This module (with `main`) is the only place redstring reads the
environment: the library takes every setting as an argument.

- `--embeddings local|multilingual|openai|none`: `REDSTRING_EMBEDDINGS`;
- `--embed-base-url`, `--embed-model`, `--embed-dimension`:
  `REDSTRING_EMBED_BASE_URL`, `REDSTRING_EMBED_MODEL`, `REDSTRING_EMBED_DIMENSION`;
- `--llm-base-url`, `--llm-model`: `REDSTRING_LLM_BASE_URL`, `REDSTRING_LLM_MODEL`;
- `--llm-timeout`, `--llm-concurrency`, `--llm-attempts`, `--max-tokens`,
  `--structured-output`: `REDSTRING_LLM_TIMEOUT`, `REDSTRING_LLM_CONCURRENCY`,
  `REDSTRING_LLM_ATTEMPTS`, `REDSTRING_LLM_MAX_TOKENS`, `REDSTRING_STRUCTURED_OUTPUT`;
- `--max-failed-share`, `--pair-questions` (build): `REDSTRING_MAX_FAILED_SHARE`,
  `REDSTRING_PAIR_QUESTIONS`;
- `--api-key` (both servers): `REDSTRING_API_KEY`, then `OPENAI_API_KEY`.

Without `--embeddings` the local model is used when the `local` extra is
installed, and no embedding provider otherwise.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from redstring.client.embeddings import local_extra_installed
from redstring.domain.errors import InvalidSettingError, MissingSettingError
from redstring.llm.local_embedding import LocalEmbeddingProvider
from redstring.llm.multilingual_embedding import MultilingualEmbeddingProvider
from redstring.llm.openai_compatible import (
    STRUCTURED_OUTPUTS,
    OpenAICompatibleEmbeddingProvider,
    OpenAICompatibleLlmProvider,
)
from redstring.ports.embedding_provider import EmbeddingProvider

EmbeddingKind = Literal["local", "multilingual", "openai", "none"]
EMBEDDING_KINDS: tuple[EmbeddingKind, ...] = ("local", "multilingual", "openai", "none")


def _setting(
    args: argparse.Namespace, attribute: str, env: Mapping[str, str], *variables: str
) -> str | None:
    given = getattr(args, attribute, None)
    if isinstance(given, str) and given.strip():
        return given.strip()
    for variable in variables:
        value = env.get(variable, "").strip()
        if value:
            return value
    return None


def _required(
    args: argparse.Namespace, attribute: str, env: Mapping[str, str], *, what: str, variable: str
) -> str:
    value = _setting(args, attribute, env, variable)
    if value is None:
        flag = "--" + attribute.replace("_", "-")
        raise MissingSettingError(what=what, flag=flag, variable=variable)
    return value


def _api_key(args: argparse.Namespace, env: Mapping[str, str]) -> str | None:
    return _setting(args, "api_key", env, "REDSTRING_API_KEY", "OPENAI_API_KEY")


#: What `index` says when it stores passages unembedded without being told to.
NO_EMBEDDINGS_WARNING = (
    "redstring: warning: no embedding provider (the `local` extra is not installed), so "
    "passages are stored without embeddings and only lexical search finds them. Install "
    "it (pip install 'redstring[local]') and index again, or pass --embeddings none to "
    "silence this.\n"
)


def chose_embeddings(args: argparse.Namespace, env: Mapping[str, str]) -> bool:
    """Whether `--embeddings` or `REDSTRING_EMBEDDINGS` chose a provider kind."""
    return _setting(args, "embeddings", env, "REDSTRING_EMBEDDINGS") is not None


def embedding_kind(args: argparse.Namespace, env: Mapping[str, str]) -> EmbeddingKind:
    """The provider kind asked for, or the default (local if installed, else none)."""
    chosen = _setting(args, "embeddings", env, "REDSTRING_EMBEDDINGS")
    if chosen is None:
        return "local" if local_extra_installed() else "none"
    for kind in EMBEDDING_KINDS:
        if chosen == kind:
            return kind
    raise InvalidSettingError(
        name="REDSTRING_EMBEDDINGS",
        value=chosen,
        requirement="one of local, multilingual, openai, none",
    )


def embedding_provider(
    args: argparse.Namespace, env: Mapping[str, str]
) -> EmbeddingProvider | None:
    """The embedding provider the flags and environment configure; `None` for `none`.

    Raises `MissingSettingError` when `openai` lacks its URL, model or
    dimension, `InvalidSettingError` for a dimension that is not a positive
    integer, and `MissingExtraError` when `local` is asked for without the extra.
    """
    kind = embedding_kind(args, env)
    raw_threads = _setting(args, "threads", env, "REDSTRING_THREADS")
    threads = None if raw_threads is None else positive_int(raw_threads, name="--threads")
    if kind == "none":
        return None
    if kind == "local":
        return LocalEmbeddingProvider(threads=threads)
    if kind == "multilingual":
        return (
            MultilingualEmbeddingProvider()
            if threads is None
            else MultilingualEmbeddingProvider(threads=threads)
        )
    what = "--embeddings openai"
    base_url = _required(
        args, "embed_base_url", env, what=what, variable="REDSTRING_EMBED_BASE_URL"
    )
    model = _required(args, "embed_model", env, what=what, variable="REDSTRING_EMBED_MODEL")
    raw = _required(args, "embed_dimension", env, what=what, variable="REDSTRING_EMBED_DIMENSION")
    dimension = positive_int(raw, name="--embed-dimension")
    return OpenAICompatibleEmbeddingProvider(
        base_url=base_url, model=model, dimension=dimension, api_key=_api_key(args, env)
    )


async def close_embeddings(embeddings: EmbeddingProvider | None) -> None:
    """Close an OpenAI-protocol provider's HTTP client; the command that built it owns it.

    The local model and `None` hold nothing to close.
    """
    if isinstance(embeddings, OpenAICompatibleEmbeddingProvider):
        await embeddings.aclose()


def llm_endpoint(args: argparse.Namespace, env: Mapping[str, str]) -> tuple[str, str]:
    """The language model's base URL and model name.

    Raises `MissingSettingError` without either, `InvalidSettingError` for a
    URL that is not http(s).
    """
    what = "`redstring build`"
    base_url = _required(args, "llm_base_url", env, what=what, variable="REDSTRING_LLM_BASE_URL")
    model = _required(args, "llm_model", env, what=what, variable="REDSTRING_LLM_MODEL")
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidSettingError(
            name="--llm-base-url", value=base_url, requirement="an http:// or https:// URL"
        )
    return base_url, model


def llm_model_name(args: argparse.Namespace, env: Mapping[str, str]) -> str | None:
    """The language model's name `--llm-model` or its variable gives; `None` when unset."""
    return _setting(args, "llm_model", env, "REDSTRING_LLM_MODEL")


def llm_provider(args: argparse.Namespace, env: Mapping[str, str]) -> OpenAICompatibleLlmProvider:
    """The OpenAI-protocol language model the flags and environment configure.

    Raises `MissingSettingError` without a base URL or a model, and
    `InvalidSettingError` for a timeout, concurrency, attempts or max_tokens
    that is not a positive number, or an unknown structured output.
    """
    base_url, model = llm_endpoint(args, env)
    settings: dict[str, Any] = {}
    timeout = _setting(args, "llm_timeout", env, "REDSTRING_LLM_TIMEOUT")
    if timeout is not None:
        settings["timeout"] = positive_float(timeout, name="--llm-timeout")
    for attribute, variable, keyword in (
        ("llm_concurrency", "REDSTRING_LLM_CONCURRENCY", "max_concurrency"),
        ("llm_attempts", "REDSTRING_LLM_ATTEMPTS", "max_attempts"),
        ("max_tokens", "REDSTRING_LLM_MAX_TOKENS", "max_tokens"),
    ):
        raw = _setting(args, attribute, env, variable)
        if raw is not None:
            settings[keyword] = positive_int(raw, name="--" + attribute.replace("_", "-"))
    structured = _setting(args, "structured_output", env, "REDSTRING_STRUCTURED_OUTPUT")
    if structured is not None:
        if structured not in STRUCTURED_OUTPUTS:
            raise InvalidSettingError(
                name="REDSTRING_STRUCTURED_OUTPUT",
                value=structured,
                requirement="one of " + ", ".join(STRUCTURED_OUTPUTS),
            )
        settings["structured_output"] = structured
    return OpenAICompatibleLlmProvider(
        base_url=base_url, model=model, api_key=_api_key(args, env), **settings
    )


def max_failed_share(args: argparse.Namespace, env: Mapping[str, str]) -> float | None:
    """`--max-failed-share` / `REDSTRING_MAX_FAILED_SHARE` on 0..1; `None` when unset."""
    raw = _setting(args, "max_failed_share", env, "REDSTRING_MAX_FAILED_SHARE")
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise InvalidSettingError(
            name="--max-failed-share", value=raw, requirement="a number from 0 to 1"
        )
    return value


def pair_questions(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """`--pair-questions` / `REDSTRING_PAIR_QUESTIONS`, a whole number >= 0; 0 when unset."""
    raw = _setting(args, "pair_questions", env, "REDSTRING_PAIR_QUESTIONS")
    if raw is None:
        return 0
    if not (raw.isascii() and raw.isdigit()):
        raise InvalidSettingError(
            name="--pair-questions", value=raw, requirement="a whole number >= 0"
        )
    return int(raw)


def positive_float(raw: str, *, name: str) -> float:
    """`raw` as a number > 0, or `InvalidSettingError` naming `name`."""
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise InvalidSettingError(name=name, value=raw, requirement="a number > 0")
    return value


def positive_int(raw: str, *, name: str) -> int:
    """`raw` as an integer >= 1, or `InvalidSettingError` naming `name`."""
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise InvalidSettingError(name=name, value=raw, requirement="a whole number >= 1")
    return value
