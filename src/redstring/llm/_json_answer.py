"""A model's text answer -> a JSON object validated against a JSON schema.

The one place the OpenAI-compatible language-model adapter parses answers.
`parse_json_answer` raises `MalformedCompletionError` (naming the model and the
first violations) when the text is not a JSON object or breaks the schema.

The validator covers the JSON-schema keywords an extraction schema uses:
`type` (one or a list), `enum`, `const`, `properties`, `required`,
`additionalProperties: false` and `items`. Other keywords are not checked.
"""

from __future__ import annotations

import json
from typing import Any

from redstring.domain.errors import MalformedCompletionError

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
}
_MAX_REPORTED = 3


def parse_json_answer(text: str, schema: dict[str, Any], *, model: str) -> dict[str, Any]:
    """The JSON object in `text` (bare, fenced, or amid prose), checked against `schema`."""
    value = _decode(text, model=model)
    if not isinstance(value, dict):
        raise MalformedCompletionError(
            f"model {model!r} answered JSON that is not an object: {text[:200]!r}. "
            "The prompt must ask for one JSON object.",
            model=model,
        )
    problems = violations(value, schema)
    if problems:
        shown = "; ".join(problems[:_MAX_REPORTED])
        raise MalformedCompletionError(
            f"model {model!r} answered JSON that breaks the schema ({len(problems)} "
            f"problem(s)): {shown}. Use a model that follows JSON schemas, or enable "
            "structured output if the server supports it.",
            model=model,
        )
    return value


def _decode(text: str, *, model: str) -> Any:
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    try:
        return json.loads(stripped)
    except json.JSONDecodeError as error:
        start, end = stripped.find("{"), stripped.rfind("}")
        if 0 <= start < end:
            try:
                return json.loads(stripped[start : end + 1])
            except json.JSONDecodeError:
                pass
        raise MalformedCompletionError(
            f"model {model!r} answered text that is not JSON ({error.msg}): {text[:200]!r}. "
            "Use a model that follows JSON instructions, or enable structured output.",
            model=model,
        ) from error


def violations(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Every way `value` breaks `schema`, each as 'path: what is wrong'."""
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not any(_is_type(value, name) for name in names):
            return [f"{path}: expected {' or '.join(names)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {value!r} is not one of {schema['enum']!r}"]
    if "const" in schema and value != schema["const"]:
        return [f"{path}: {value!r} is not {schema['const']!r}"]
    problems: list[str] = []
    if isinstance(value, dict):
        properties: dict[str, Any] = schema.get("properties", {})
        problems += [
            f"{path}: missing {key!r}" for key in schema.get("required", ()) if key not in value
        ]
        for key, item in value.items():
            if key in properties:
                problems += violations(item, properties[key], f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                problems.append(f"{path}: unexpected {key!r}")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problems += violations(item, schema["items"], f"{path}[{index}]")
    return problems


def _is_type(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("number", "integer"):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES.get(name, (object,)))
