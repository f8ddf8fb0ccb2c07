"""A public model's refusal of its fields as the library's `InvalidArgumentError` (ADR 0140).

pydantic wraps what a validator raises in its own `ValidationError`, so a
model a caller builds by hand (`SourceDocument(...)`, `Entity(...)`)
converts the first error it reports: the argument is named `Model.field`,
the message is pydantic's reason, the value is shown shortened (ADR 0505).
"""

from __future__ import annotations

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


class CheckedModel(BaseModel):
    """A model callers build by hand: a field it refuses raises `InvalidArgumentError`
    naming `Model.field` instead of pydantic's `ValidationError`.

    Reading a stored row (`model_validate`, `model_validate_json`) still raises
    `ValidationError`, which the stores report as a damaged row.
    """

    if not TYPE_CHECKING:  # the checker keeps each model's own field signature

        def __init__(self, **data: Any) -> None:
            try:
                super().__init__(**data)
            except ValidationError as error:
                raise invalid_field(type(self).__name__, error) from None
