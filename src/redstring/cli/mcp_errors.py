"""Tool errors written for a model: which argument to change, and to what (ADR 0177).

The SDK reports arguments its schema refuses as a pydantic dump (hundreds of
characters naming an internal model); `argument_error` turns each into one
sentence per argument. `library_error` does the same for what the library
refuses, keeping the argument's name first.
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import Any

from pydantic import ValidationError

from redstring.domain.errors import InvalidArgumentError, RedstringError, UnknownEntityError
from redstring.domain.held_names import unheld_names

_MAX_VALUE = 60


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 3] + "..."


#: What pydantic says of a value that is no whole number: a fraction, or past any integer.
_NOT_WHOLE = frozenset({"int_from_float", "int_parsing", "int_parsing_size", "int_type"})


def _whole_number(schema: dict[str, Any]) -> str:
    """What a whole number argument must be, with the bounds its JSON `schema` states."""
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f"must be a whole number from {low} to {high}"
    if low is not None:
        return f"must be a whole number from {low}"
    return "must be a whole number" if high is None else f"must be a whole number up to {high}"


def _requirement(error: Any, properties: dict[str, Any]) -> str:
    kind = error["type"]
    context = error.get("ctx", {})
    argument = str(error["loc"][0]) if error["loc"] else "arguments"
    if kind == "missing":
        return "is required"
    if kind in _NOT_WHOLE:
        return _whole_number(properties.get(argument, {}))
    if kind == "literal_error":
        return f"must be one of {context.get('expected', '')}"
    if kind in {"less_than_equal", "greater_than_equal"}:
        bound = context.get("le", context.get("ge"))
        return f"must be {'at most' if kind == 'less_than_equal' else 'at least'} {bound}"
    if kind == "string_pattern_mismatch":
        if argument == "query":
            return "must hold a non-space character (the words to search for)"
        if argument == "entity_id":
            return "must be an entity `id` from search_entities (a UUID)"
        return "must be a `passage_id` from search_passages"
    if kind in {"too_short", "string_too_short"}:
        return "must not be empty (omit it instead)" if kind == "too_short" else "is too short"
    if kind in {"too_long", "string_too_long"}:
        return f"is too long (at most {context.get('max_length', '?')})"
    if kind == "value_error":
        return str(context.get("error", error["msg"])).rstrip(".")
    return str(error["msg"]).rstrip(".").lower()


def argument_error(
    tool: str, error: ValidationError, properties: dict[str, Any] | None = None
) -> str:
    """One sentence per refused argument of `tool`, each naming the argument first.

    `properties` are the tool's JSON schema properties: the bounds a whole number
    argument is said to need come from them.
    """
    sentences = []
    for item in error.errors():
        location = [str(part) for part in item["loc"]]
        argument = location[0] if location else "arguments"
        where = argument + "".join(f"[{part}]" for part in location[1:])
        got = "" if item["type"] == "missing" else f" (got {_shown(item.get('input'))})"
        sentences.append(f"Argument `{where}` {_requirement(item, properties or {})}{got}.")
    return f"{tool}: " + " ".join(sentences) + " Change it and call again."


def library_error(tool: str, error: RedstringError | ValueError) -> str:
    """What the library refused, on one line, naming the argument where it has one."""
    if isinstance(error, UnknownEntityError):
        return (
            f"{tool}: Argument `entity_id` names no entity in this knowledge graph. "
            "Pass an `id` that search_entities returned."
        )
    text = " ".join(str(error).split())
    if isinstance(error, InvalidArgumentError):
        return f"{tool}: Argument `{error.name}`: {text}"
    return f"{tool}: {text}"


def unknown_names(argument: str, missing: list[str], known: list[str]) -> str:
    """A refusal of names the tenant does not hold, naming the closest it does."""
    found = unheld_names(missing, known)
    close = () if found is None else found.closest
    hint = f" Closest held: {', '.join(close)}." if close else ""
    return (
        f"Argument `{argument}` names what this graph does not hold: "
        f"{', '.join(_shown(name) for name in missing[:5])}.{hint} "
        "Call describe_tenant for the full list, or omit the argument."
    )


def undeclared_arguments(tool: str, undeclared: list[str], declared: list[str]) -> str:
    """A refusal of arguments `tool` does not declare, each with the declared one closest to it."""

    folded = {name.replace("_", "").lower(): name for name in declared}

    def refused(argument: str) -> str:
        near = get_close_matches(argument.replace("_", "").lower(), folded, n=1, cutoff=0.0)
        closest = f" (closest declared: `{folded[near[0]]}`)" if near else ""
        return f"Argument `{_shown(argument)[1:-1]}` is not declared by this tool{closest}."

    sentences = " ".join(refused(argument) for argument in undeclared)
    if not declared:
        none = f"{tool} takes no arguments: call it with {{}}."
        return f"{tool}: {sentences} Nothing was applied. {none}"
    return (
        f"{tool}: {sentences} Nothing was applied. Its arguments are: "
        f"{', '.join(declared)}. Call again without it."
    )


class EmptyTenantError(RedstringError, ValueError):
    """The server was asked to serve a tenant holding neither entities nor passages."""

    def __init__(self, *, tenant: str, others: list[str]) -> None:
        self.tenant = tenant
        self.others = others
        held = ", ".join(others) if others else "none"
        super().__init__(
            f"tenant {tenant} holds no entities and no passages in this database, so the MCP "
            f"server would answer every search with nothing. Tenants holding data: {held}. "
            "Check --tenant (the name as given to index/build), or index documents into it first."
        )
