"""A public model's refusal of its fields as the library's `InvalidArgumentError` (ADR 0140).

pydantic wraps what a validator raises in its own `ValidationError`, so a
model a caller builds by hand (`SourceDocument(...)`, `Entity(...)`)
converts the first error it reports: the argument is named `Model.field`,
the message is pydantic's reason, the value is shown shortened (ADR 0505).
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from redstring.domain.errors import InvalidArgumentError

#: The most characters of a refused value's `repr` a message shows.
_SHOWN = 60


def invalid_field(model: str, error: ValidationError) -> InvalidArgumentError:
    """The first of `error`'s refusals, for the model named `model`, as `InvalidArgumentError`."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    name = f"{model}.{field}" if field else model
    if first["type"] == "missing":
        return InvalidArgumentError(
            name=name, value=None, requirement="given", message=f"{name} is required: pass it."
        )
    reason = str(first["msg"]).removeprefix("Value error, ")
    reason = reason[:1].lower() + reason[1:]
    value = first.get("input")
    shown = repr(value)
    if len(shown) > _SHOWN:
        shown = shown[: _SHOWN - 3] + "..."
    return InvalidArgumentError(
        name=name,
        value=value,
        requirement=reason,
        message=f"{name}={shown} is not allowed: {reason}.",
    )


def _positional(model: str, fields: dict[str, Any], args: tuple[Any, ...]) -> InvalidArgumentError:
    required = [name for name, field in fields.items() if field.is_required()]
    example = ", ".join(f"{name}=..." for name in required)
    return InvalidArgumentError(
        name=model,
        value=args,
        requirement="given its fields by name",
        message=(f"{model} takes its fields by name, not by position: pass {model}({example})."),
    )


def _unknown_field(
    model: str, fields: dict[str, Any], field: str, value: object
) -> InvalidArgumentError:
    close = get_close_matches(field, list(fields), n=1)
    hint = f"did you mean {close[0]}=? " if close else ""
    return InvalidArgumentError(
        name=f"{model}.{field}",
        value=value,
        requirement="a field of the model",
        message=(
            f"{model}.{field} is not a field of {model}: {hint}its fields are {', '.join(fields)}."
        ),
    )


class CheckedModel(BaseModel):
    """A model callers build by hand: a field it refuses raises `InvalidArgumentError`
    naming `Model.field` instead of pydantic's `ValidationError`.

    Fields are given by name: a positional argument, or a keyword that names no
    field (`metadta=`), raises `InvalidArgumentError` rather than being dropped.
    Reading a stored row (`model_validate`, `model_validate_json`) still raises
    `ValidationError`, which the stores report as a damaged row, and still
    ignores keys it does not know.
    """

    if not TYPE_CHECKING:  # the checker keeps each model's own field signature

        def __init__(self, *args: Any, **data: Any) -> None:
            model = type(self).__name__
            if args:
                raise _positional(model, type(self).model_fields, args)
            unknown = sorted(set(data) - set(type(self).model_fields))
            if unknown:
                raise _unknown_field(model, type(self).model_fields, unknown[0], data[unknown[0]])
            try:
                super().__init__(**data)
            except ValidationError as error:
                raise invalid_field(type(self).__name__, error) from None

        # Read as pydantic's own: a stored row validated (`model_validate`) never passes
        # through here, so it neither meets these checks nor loses its `ValidationError`.
        __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]
