"""The checks every public call makes on its arguments, in one place (ADR 0141).

A public entry point (`Retriever.retrieve`, `ChunkRetriever.retrieve_chunks`,
`build_graph`, `index_documents`, a store write) calls these once, before any
store or encoder sees the value, and a bad value raises
`InvalidArgumentError` naming the argument and what it must be. Nothing
below the boundary re-checks.

- Text (a query, a name, a type, a document's id or text) must be a `str`
  that UTF-8 can encode: a lone surrogate (`"Ada\\ud800"`) is refused here
  rather than as a `UnicodeEncodeError` from a driver or an encoder.
- `k` must be a whole number (not a `bool`) of zero or more: any
  `numbers.Integral` (an `int`, a numpy integer), returned as an `int`, and a
  fraction as any `numbers.Real` (`whole_number`, `real_number`), so a value
  read from an array is taken as the number it is.
- A tenant id must be a `UUID`: a `str` would key the in-memory stores
  differently from the SQL ones (which store its text), so one call would
  find nothing in memory and everything in SQLite. `tenant_id_for` turns a
  name into one.
- JSON properties must hold only finite numbers: JSON has no NaN or
  infinity, so a store could not give them back.
- A value looked up (a filter's item, an id argument) holds no NUL: no
  PostgreSQL text can, so every store answers it alike (`require_lookup_text`);
  nor does a text a graph write stores (`require_storable_text`,
  `require_storable_json`), so every store refuses it alike.
"""

from __future__ import annotations

import inspect
import math
import numbers
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any
from uuid import UUID

from redstring.domain.errors import InvalidArgumentError


def require_str(name: str, value: object) -> str:
    """`value` if it is a `str` UTF-8 can encode, else `InvalidArgumentError` naming `name`."""
    if not isinstance(value, str):
        raise InvalidArgumentError(
            name=name,
            value=value,
            requirement=f"a str, not {type(value).__name__}"
            + (
                " (decode bytes first, e.g. value.decode('utf-8'))"
                if isinstance(value, bytes)
                else ""
            ),
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidArgumentError(
            name=name,
            value=value,
            requirement=(
                f"valid Unicode text, but it holds a lone surrogate at position {error.start}; "
                "decode the source with errors='replace' or remove the character"
            ),
        ) from None
    return value


def require_query(query: object, *, name: str = "query") -> str:
    """`query` if it is encodable text with something besides whitespace."""
    text = require_str(name, query)
    if not text.strip():
        raise InvalidArgumentError(
            name=name,
            value=query,
            requirement="not blank",
            message=(
                f"{name} must not be blank: an empty query has no meaning to embed or match. "
                "Pass the text the user searched for."
            ),
        )
    return text


def whole_number(value: object) -> int | None:
    """`value` as an `int` when it is a whole number (any `numbers.Integral`, a numpy
    integer too) and not a `bool`; `None` for anything else."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


def real_number(value: object) -> float | None:
    """`value` as a `float` when it is a number (any `numbers.Real`, a numpy float too)
    and not a `bool`; `None` for anything else."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value)


def require_seconds(name: str, given: object) -> float:
    """`given` as a `float` if a finite number (not a `bool`) of zero or more: a wait in
    seconds. A negative or NaN wait would mean no wait at all, so it is refused."""
    seconds = real_number(given)
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        raise InvalidArgumentError(
            name=name,
            value=given,
            requirement=f"a finite number of seconds, zero or more (e.g. {name}=5.0)",
        )
    return seconds


def require_bool(name: str, given: object) -> bool:
    """`given` if it is `True` or `False`: a text such as "no" or a number is refused
    rather than read as its truth (`keep_missing="no"` would keep)."""
    if not isinstance(given, bool):
        raise InvalidArgumentError(
            name=name, value=given, requirement=f"True or False, not {type(given).__name__}"
        )
    return given


def require_k(given: object, *, name: str = "k") -> int:
    """`given` as an `int` if it is a whole number (not a `bool`) of zero or more; zero
    means no results."""
    k = whole_number(given)
    if k is None:
        raise InvalidArgumentError(
            name=name,
            value=given,
            requirement=f"an int of zero or more, not {type(given).__name__}; pass e.g. {name}=5",
        )
    if k < 0:
        raise InvalidArgumentError(
            name=name,
            value=k,
            requirement="zero or more",
            message=f"{name} must be zero or more, got {k}; {name}=0 returns no matches.",
        )
    return k


def require_count(name: str, given: object) -> int:
    """`given` as an `int` if it is a whole number (not a `bool`, not a `str`) of zero or
    more, else `InvalidArgumentError` naming `name` (a number of questions, say)."""
    count = whole_number(given)
    if count is None or count < 0:
        kind = "" if count is not None else f", not {type(given).__name__}"
        raise InvalidArgumentError(
            name=name, value=given, requirement=f"an int of zero or more{kind}"
        )
    return count


def require_share(name: str, given: object) -> float:
    """`given` as a `float` if it is a number (not a `bool`, not a `str`) on 0..1, else
    `InvalidArgumentError` naming `name` (a share of chunks, say)."""
    share = real_number(given)
    if share is None or not 0.0 <= share <= 1.0:  # NaN is on no range
        kind = "" if share is not None else f", not {type(given).__name__}"
        raise InvalidArgumentError(name=name, value=given, requirement=f"a number on 0..1{kind}")
    return share


def require_dimension(given: object) -> int | None:
    """`given` if `None`, else as `require_vector_dimension` takes it (a database's opener,
    where `None` takes the dimension the database records)."""
    if given is None:
        return None
    return require_vector_dimension(
        given, or_else="or None for a database that already records one"
    )


def require_vector_dimension(given: object, *, or_else: str = "") -> int:
    """`given` as an `int` if a positive whole number (any `numbers.Integral`, a numpy
    integer too, not a `bool`), else `InvalidArgumentError` naming `dimension`, whose
    requirement ends with `or_else` when given (another value the caller takes)."""
    dimension = whole_number(given)
    if dimension is None or dimension <= 0:
        requirement = "a positive int, the length of the embedding vectors (e.g. dimension=384)"
        raise InvalidArgumentError(
            name="dimension",
            value=given,
            requirement=f"{requirement}, {or_else}" if or_else else requirement,
        )
    return dimension


def _refuse_nul(name: str, value: str, *, holds: str) -> None:
    """Refuse `value` if it holds a NUL, naming `name`; `holds` says what else holds none."""
    position = value.find("\x00")
    if position >= 0:
        raise InvalidArgumentError(
            name=name,
            value=value,
            requirement="free of NUL characters",
            message=(
                f"{name}={value!r} is not allowed: it holds a NUL character (\\x00) at "
                f"position {position}, and {holds}; remove it "
                "(a C string's terminator read along, or bytes decoded as text)."
            ),
        )


def require_lookup_text(name: str, value: object) -> str:
    """`value` if it is encodable text holding no NUL: a value compared with what a store
    holds (an id argument, a filter's item), refused alike whichever store it would reach.

    No PostgreSQL text can hold a NUL, so such a value names nothing stored and
    PostgreSQL's driver refuses to send it; it is refused here, naming `name`,
    so every store answers alike (ADR 0610). Other control characters pass: an
    id stored before document ids were held to none (ADR 0585) is still found.
    """
    text = require_str(name, value)
    _refuse_nul(name, text, holds="no id, type or source holds one")
    return text


#: Why a written text may hold no NUL, as a refusal says it.
_NO_STORE_HOLDS = "PostgreSQL cannot store one, so no store takes it"


def require_storable_text(name: str, value: object) -> str:
    """`value` if it is encodable text holding no NUL: a text a graph write stores (an
    entity's type, name or alias, a relationship's type), refused alike in every store
    (ADR 0645): PostgreSQL cannot store a NUL, which SQLite and memory would keep."""
    text = require_str(name, value)
    _refuse_nul(name, text, holds=_NO_STORE_HOLDS)
    return text


def require_storable_json(name: str, value: Any) -> None:
    """`require_finite_json`, and no NUL in any string or key of `value` (ADR 0645)."""
    require_finite_json(name, value)
    for path, leaf in _leaves(name, value):
        if isinstance(leaf, str):
            _refuse_nul(path, leaf, holds=_NO_STORE_HOLDS)
    for path, key in _keys(name, value):
        _refuse_nul(path, key, holds=_NO_STORE_HOLDS)


def require_lookup_items(name: str, values: object) -> list[str] | None:
    """`values` as a list of `require_lookup_text` strings, `None` kept; a lone `str` is
    refused (a filter's values: `entity_types`, `source_ids`).

    A bare string is a sequence of characters, so `entity_types="person"`
    would silently filter on "p", "e", ...; it is refused naming the fix.
    """
    if values is None:
        return None
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise InvalidArgumentError(
            name=name,
            value=values,
            requirement=f"a list of str or None; pass [{values!r}] for one value",
        )
    return [require_lookup_text(f"{name}[{index}]", item) for index, item in enumerate(values)]


def require_tenant_id(tenant_id: object, *, name: str = "tenant_id") -> UUID:
    """`tenant_id` if it is a `UUID`; a name or a UUID's text is refused naming the fix."""
    if not isinstance(tenant_id, UUID):
        raise InvalidArgumentError(
            name=name,
            value=tenant_id,
            requirement=(
                f"a TenantId (a UUID), not {type(tenant_id).__name__}; pass "
                "tenant_id_for(name) for a tenant name or TenantId(UUID(text)) for a UUID's text"
            ),
        )
    return tenant_id


def require_finite_json(name: str, value: Any) -> None:
    """Refuse NaN and infinity anywhere in a JSON value (JSON cannot hold them)."""
    for path, leaf in _leaves(name, value):
        if isinstance(leaf, float) and not math.isfinite(leaf):
            raise InvalidArgumentError(
                name=path,
                value=leaf,
                requirement=(
                    "a finite number: JSON has no NaN or infinity, so no store could give it "
                    "back; store null or a string instead"
                ),
            )
        if isinstance(leaf, str):
            require_str(path, leaf)


def _leaves(path: str, value: Any) -> Iterable[tuple[str, Any]]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(f"{path}[{key!r}]", item)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _leaves(f"{path}[{index}]", item)
    else:
        yield path, value


def _keys(path: str, value: Any) -> Iterable[tuple[str, str]]:
    """Each key of a mapping anywhere in `value`, with the path of the value it keys."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield f"{path}[{key!r}]", str(key)
            yield from _keys(f"{path}[{key!r}]", item)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _keys(f"{path}[{index}]", item)


def control_character(text: str) -> str | None:
    """The first control character (C0, DEL or C1: a newline, a tab, NUL) in `text`, or None.

    A document id holding one would break every line-oriented listing of ids.
    """
    for character in text:
        if unicodedata.category(character) == "Cc":
            return character
    return None


def document_id_problem(value: str) -> str | None:
    """Why `value` cannot be a document id (blank, or holding a control character; ADR
    0575), or None when it can: the one rule of `SourceDocument.id`, of a stored
    chunk's `source_id`, and of the documents an index or build is given."""
    if not value.strip():
        return "it must not be blank; use a path, URL or key"
    held = control_character(value)
    if held is not None:
        return (
            f"it holds the control character {held!r}; use a path, URL or key "
            "without newlines, tabs or other control characters"
        )
    return None


def require_document_id(name: str, value: Any) -> None:
    """Refuse `value` unless it is encodable text that `document_id_problem` takes."""
    require_str(name, value)
    problem = document_id_problem(value)
    if problem is not None:
        raise InvalidArgumentError(
            name=name,
            value=value,
            requirement=problem,
            message=f"{name}={value!r} is not allowed: {problem}.",
        )


def require_documents(documents: Iterable[Any], *, name: str = "documents") -> None:
    """Every document's id, text, title and metadata is encodable text and finite JSON,
    and its id a document id: a document changed after it was made (`model_copy`, an
    assignment) skipped the checks its constructor made.

    Metadata, which every passage of the document carries, holds no NUL
    (`require_storable_json`): PostgreSQL's `jsonb` cannot store one. A NUL in the
    text is no fault: the chunker reads it as a space (ADR 0685).
    """
    for index, document in enumerate(documents):
        where = f"{name}[{index}]"
        require_document_id(f"{where}.id", document.id)
        require_str(f"{where}.text", document.text)
        require_str(f"{where}.title", document.title)
        require_storable_json(f"{where}.metadata", document.metadata)


#: The most characters of an entity's name or of one alias. A name files blocking keys
#: in proportion to its length (character trigrams), and every lexical query of its
#: tenant that shares one reads it: a longer text belongs in the description.
MAX_NAME_LENGTH = 1000


def require_name(name: str, value: str) -> None:
    """Refuse a name (or alias) longer than `MAX_NAME_LENGTH` characters."""
    if len(value) > MAX_NAME_LENGTH:
        raise InvalidArgumentError(
            name=name,
            value=value[:40] + "...",
            requirement=f"at most {MAX_NAME_LENGTH} characters, not {len(value)}: a name "
            "is what the entity is called; put longer text in its description",
        )


def require_keys(keys: object, *, name: str = "keys") -> None:
    """Refuse `keys` unless it is a collection of str (a lone `str` reads as its characters)."""
    if isinstance(keys, str | bytes) or not isinstance(keys, Iterable):
        raise InvalidArgumentError(
            name=name,
            value=keys,
            requirement=f"a list of str, not {type(keys).__name__}; pass [{keys!r}] for one key",
        )
    for index, key in enumerate(keys):
        if not isinstance(key, str):
            raise InvalidArgumentError(
                name=f"{name}[{index}]", value=key, requirement="a str (a blocking key)"
            )


def require_callback(name: str, value: object, *, called_as: str, arguments: int) -> None:
    """Refuse a `value` that is neither `None` nor a callable taking `arguments` positional
    arguments: `InvalidArgumentError` naming `name` and how it is called (`called_as`),
    before the run it would fail in begins. A callable whose signature cannot be read
    (some built-ins) is taken on trust."""
    if value is None:
        return
    requirement = f"None or a function called as {called_as}"
    if not callable(value):
        raise InvalidArgumentError(name=name, value=value, requirement=requirement)
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*range(arguments))
    except TypeError as refused:
        raise InvalidArgumentError(
            name=name,
            value=value,
            requirement=requirement,
            message=f"{name}={value!r} cannot be called as {called_as} ({refused}): "
            f"give it {arguments} positional parameter{'s' if arguments != 1 else ''}.",
        ) from None


def require_at_least_one(name: str, value: object) -> None:
    """Refuse a count `value` (a block limit, a batch size, a concurrency) that is no whole
    number (a `bool`, a `str`, 2.5) or is below 1."""
    count = whole_number(value)
    if count is None:
        raise InvalidArgumentError(
            name=name, value=value, requirement=f"an int of at least 1, not {type(value).__name__}"
        )
    if count < 1:
        raise InvalidArgumentError(
            name=name,
            value=value,
            requirement="at least 1",
            message=f"{name} must be at least 1, got {value}",
        )


def require_instances(name: str, values: object, kind: type) -> list[Any]:
    """`values` as a list whose every item is a `kind`, else `InvalidArgumentError` naming it."""
    if isinstance(values, str | bytes | kind | Mapping) or not isinstance(values, Iterable):
        raise InvalidArgumentError(
            name=name,
            value=values,
            requirement=f"a list of {kind.__name__}, not {type(values).__name__}; "
            "pass [value] for one",
        )
    items = list(values)
    for index, item in enumerate(items):
        if not isinstance(item, kind):
            raise InvalidArgumentError(
                name=f"{name}[{index}]",
                value=item,
                requirement=f"a {kind.__name__}, not {type(item).__name__}; build one with "
                f"{kind.__name__}(...) or {kind.__name__}.model_validate(data)",
            )
    return items


def require_writable_chunks(chunks: Iterable[Any], *, name: str = "chunks") -> None:
    """Every chunk a store is asked to write has encodable text and finite JSON metadata."""
    for index, chunk in enumerate(chunks):
        where = f"{name}[{index}]"
        require_tenant_id(chunk.tenant_id, name=f"{where}.tenant_id")
        require_str(f"{where}.source_id", chunk.source_id)
        require_str(f"{where}.text", chunk.text)
        require_finite_json(f"{where}.metadata", chunk.metadata)
