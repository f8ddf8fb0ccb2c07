"""The MCP tools' argument types: exactly what each tool accepts, stated in its JSON schema.

Fixed shapes are module constants (a non-blank query, a UUID, a passage id,
bounds of `k`). Sets that depend on the served tenant (its entity types, its
sources, the modes its provider can serve) are built at start-up by the
`*_argument` functions and put into a tool's signature by `retyped`, so the
SDK publishes them as enums and enforces them (ADR 0175).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field

#: The most results one search may ask for.
MAX_K = 50
#: The most characters of a query.
MAX_QUERY = 2000
#: Up to this many names, a tenant's types or sources are an enum; past it, free strings.
MAX_ENUM = 200
#: The most names one list argument holds, repeats included, however many the tenant has.
MAX_NAMES = 200
#: The longest source id or type name the free-string form accepts.
MAX_NAME = 1000

#: One character Python's `str.strip` keeps: a query matching this is not blank.
#: The class lists every code point `str.isspace` is true of (a test recomputes it),
#: in the `\\uXXXX` form ECMA, Python and Rust regular expressions all read.
NOT_BLANK = (
    "[^\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
)
#: A UUID in its hyphenated form, either case.
UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
#: A passage id as `chunk_id_for` makes it.
PASSAGE_ID_PATTERN = "^c:[0-9a-f]{32}$"

Query = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_QUERY,
        pattern=NOT_BLANK,
        description="What to look for, in words: a name, a description or a question. "
        "Must hold a non-space character.",
    ),
]


def whole_number(value: object) -> object:
    """Refuse what lax validation would turn into an int: `"5"` and `true` are not counts."""
    if isinstance(value, bool | str):
        raise ValueError("must be a whole number, not a string or true/false")
    return value


def whole_number_or_fraction(value: object) -> object:
    """Refuse what lax validation would turn into a float: `"0.5"` and `true` are not numbers."""
    if isinstance(value, bool | str):
        raise ValueError("must be a number from 0 to 1, not a string or true/false")
    return value


def true_or_false(value: object) -> object:
    """Refuse what lax validation would turn into a bool: `"yes"`, `"true"` and `1` are not."""
    if not isinstance(value, bool):
        raise ValueError("must be true or false, not a string or a number")
    return value


def once_each(names: list[str] | None) -> list[str] | None:
    """`names` with each name kept once, where it first appears: a repeat changes nothing."""
    return None if names is None else list(dict.fromkeys(names))


K = Annotated[
    int,
    Field(ge=0, le=MAX_K, description=f"How many results, best first (0 to {MAX_K})."),
    BeforeValidator(whole_number),
]
EntityIdArgument = Annotated[
    str,
    Field(
        pattern=UUID_PATTERN,
        json_schema_extra={"format": "uuid", "examples": ["123e4567-e89b-42d3-a456-426614174000"]},
        description="The `id` of an entity, as search_entities returned it.",
    ),
]
PassageIdArgument = Annotated[
    str,
    Field(
        pattern=PASSAGE_ID_PATTERN,
        json_schema_extra={"examples": ["c:0123456789abcdef0123456789abcdef"]},
        description="The `passage_id` of a passage, as search_passages returned it.",
    ),
]
MinConfidence = Annotated[
    float,
    Field(
        ge=0.0,
        le=1.0,
        description="Answer empty unless some result's `confidence` reaches this (0 to 1). "
        "0.5: more likely related than not; 0: always rank, however unrelated.",
    ),
    BeforeValidator(whole_number_or_fraction),
]
Explain = Annotated[
    bool,
    Field(description="Also give each result's `semantic` and `lexical` scores."),
    BeforeValidator(true_or_false),
]
Offset = Annotated[
    int,
    Field(ge=0, description="Where to start reading, in characters (a result's `more_at`)."),
    BeforeValidator(whole_number),
]


def mode_argument(embeds: bool) -> Any:
    """The `mode` type: the three modes with a provider, only lexical without one."""
    if embeds:
        return Annotated[
            Literal["hybrid", "semantic", "lexical"],
            Field(
                description="Which scores rank: hybrid (both, fused; best in general), "
                "semantic (meaning: paraphrases, descriptions) or lexical (spelling: exact "
                "names, codes, typos)."
            ),
        ]
    return Annotated[
        Literal["lexical"],
        Field(
            description="Only lexical (spelling) ranking: this server embeds nothing, so "
            "meaning-based modes are not offered."
        ),
    ]


def names_argument(names: Sequence[str], *, what: str) -> Any:
    """A list of `names` (an enum when there are at most `MAX_ENUM`), or omitted for all.

    At most `MAX_NAMES` long whatever `names` holds; a name repeated is kept once.
    """
    if names and len(names) <= MAX_ENUM:
        item: Any = Literal[tuple(names)]
        description = f"Keep only these {what}; omitted: all. Allowed: {', '.join(names)}."
    else:
        item = Annotated[str, Field(min_length=1, max_length=MAX_NAME)]
        description = f"Keep only these {what} (describe_tenant lists them); omitted: all."
    return Annotated[
        list[item] | None,
        Field(min_length=1, max_length=MAX_NAMES, description=description),
        AfterValidator(once_each),
    ]


def retyped[F: Callable[..., Any]](fn: F, **annotations: Any) -> F:
    """`fn` with the parameters named in `annotations` given those types in its signature."""
    signature = inspect.signature(fn, eval_str=True)
    parameters = [
        parameter.replace(annotation=annotations[parameter.name])
        if parameter.name in annotations
        else parameter
        for parameter in signature.parameters.values()
    ]
    fn.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return fn
