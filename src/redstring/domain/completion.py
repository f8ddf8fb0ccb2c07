"""Turning a model's raw answer into a validated JSON object: the one parsing path.

Every `LlmProvider` adapter, real or fake, hands the text it received to
`parse_completion`, so a scripted answer in a test goes through exactly the
checks a real model's answer does.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from redstring.domain.errors import (
    EmptyCompletionError,
    MalformedCompletionError,
    RefusedCompletionError,
)
from redstring.domain.ids import length_prefixed

JsonObject = dict[str, Any]

#: The smallest answer bound `answer_token_bound` derives.
MIN_ANSWER_TOKENS = 512
#: Answer tokens allowed per prompt token: an extraction answer restates
#: names, adds types, descriptions and relationships, so it outgrows its passage.
ANSWER_TOKENS_PER_PROMPT_TOKEN = 3
#: Characters per token, the rule of thumb for English text.
CHARACTERS_PER_TOKEN = 4


def answer_token_bound(prompt: str) -> int:
    """The `max_tokens` an answer to `prompt` gets when the caller sets none.

    Three answer tokens per prompt token (four characters each), and at least
    `MIN_ANSWER_TOKENS`: room for a full answer, and a bound on a model that
    repeats itself until its context is full.
    """
    prompt_tokens = -(-len(prompt) // CHARACTERS_PER_TOKEN)
    return max(MIN_ANSWER_TOKENS, ANSWER_TOKENS_PER_PROMPT_TOKEN * prompt_tokens)


def answer_key(model: str, system: str, user: str, schema: JsonObject) -> str:
    """The key an answer is kept under: a digest of everything that decides it.

    The model's name, both prompts (the chunk's text, the domain and the
    prompt's wording are in them) and the schema, each length-prefixed
    (ADR 0133), so a change to any of them is a question never asked before.
    """
    fields = ("answer", model, system, user, json.dumps(schema, sort_keys=True))
    return "answer:" + hashlib.sha256(length_prefixed(*fields)).hexdigest()


def format_key(base_url: str, model: str) -> str:
    """The key the answer format a server took is kept under: its address and model."""
    return "format:" + hashlib.sha256(length_prefixed("format", base_url, model)).hexdigest()


def parse_completion(
    text: str | None,
    schema: JsonObject,
    *,
    refusal: str | None = None,
    model: str | None = None,
) -> JsonObject:
    """The JSON object in `text`, validated against the JSON schema `schema`.

    `refusal` is the model's refusal message when it declined (a real API
    reports it separately from the text). Raises `RefusedCompletionError` when
    `refusal` is non-blank, `EmptyCompletionError` when `text` is `None` or
    blank, and `MalformedCompletionError` when `text` is not JSON, is not a
    JSON object, or does not satisfy `schema`. A fenced ```json block, or one
    object amid prose ("Here it is: {...}"), is accepted, since models without
    structured output often wrap their answer.
    """
    who = "the model" if model is None else f"model {model!r}"
    if refusal is not None and refusal.strip():
        raise RefusedCompletionError(
            f"{who} declined to answer: {refusal.strip()!r}. Rephrase the prompt or "
            "skip this input.",
            model=model,
        )
    if text is None or not text.strip():
        raise EmptyCompletionError(
            f"{who} returned an empty answer. Retry, or check the model's output token limit.",
            model=model,
        )
    try:
        value = _decode(text)
    except json.JSONDecodeError as error:
        raise MalformedCompletionError(
            f"{who} answered text that is not JSON ({error.msg} at character {error.pos}): "
            f"{_excerpt(text)}. Ask for JSON output or use a model that supports it.",
            model=model,
        ) from error
    if not isinstance(value, dict):
        raise MalformedCompletionError(
            f"{who} answered JSON that is not an object: {_excerpt(text)}. "
            "The schema asks for an object.",
            model=model,
        )
    # Imported here: only a model's answer needs it, and it is a tenth of the console
    # script's start-up (about 0.1 s) for every command that asks no model.
    import jsonschema  # noqa: PLC0415

    validator = jsonschema.Draft202012Validator(schema)
    problems = sorted(validator.iter_errors(value), key=lambda error: list(error.absolute_path))
    if problems:
        first = problems[0]
        where = "/".join(str(part) for part in first.absolute_path) or "(root)"
        raise MalformedCompletionError(
            f"{who} answered JSON that does not satisfy the schema at {where}: {first.message} "
            f"({len(problems)} problem(s) in all). Retry, or use a model with structured output.",
            model=model,
            answer=value,
        )
    return value


def _decode(text: str) -> Any:
    body = _unfenced(text)
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        start, end = body.find("{"), body.rfind("}")
        if 0 <= start < end:
            try:
                return json.loads(body[start : end + 1])
            except json.JSONDecodeError:
                pass
        raise


def _unfenced(text: str) -> str:
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and len(stripped) >= 6:
        body = stripped[3:-3]
        first_line, _, rest = body.partition("\n")
        return rest if first_line.strip().isalpha() or not first_line.strip() else body
    return stripped


def _excerpt(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
