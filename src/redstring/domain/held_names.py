"""The names a filter gives that a tenant does not hold, and the held names closest to them.

A type or source filter naming something the tenant does not hold (a
misspelling, a document id without its folder) empties a search the way a
query matching nothing does. Every surface that can tell the two apart (the
MCP server's refusal, the client's and command line's empty-answer hint)
names the missing values and the closest held ones from this one function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from difflib import get_close_matches

#: At most this many held names are offered for each missing one.
CLOSEST_PER_NAME = 3


@dataclass(frozen=True)
class UnheldNames:
    """The given names not held (as given, in the order given, each once) and the
    held names closest to any of them (as held, ascending, each once; maybe none)."""

    names: tuple[str, ...]
    closest: tuple[str, ...]


def _as_given(name: str) -> str:
    return name


def unheld_names(
    given: Iterable[str],
    held: Iterable[str],
    *,
    fold: Callable[[str], str] = _as_given,
) -> UnheldNames | None:
    """The names of `given` that `held` lacks and the held names closest to them; `None`
    when every given name is held.

    Names compare in the form `fold` gives them (the type filters fold with
    `normalize_name`; source ids compare as they are). A held name is close to a
    missing one when it ends in it after a `/` (a document id given without its
    folder) or reads like it (`difflib`'s ratio of at least 0.6).
    """
    forms: dict[str, str] = {}
    for name in held:
        forms.setdefault(fold(name), name)
    missing = [name for name in dict.fromkeys(given) if fold(name) not in forms]
    if not missing:
        return None
    close = {forms[form] for name in missing for form in _closest(fold(name), forms)}
    return UnheldNames(names=tuple(missing), closest=tuple(sorted(close)))


def _closest(form: str, held: dict[str, str]) -> list[str]:
    """At most `CLOSEST_PER_NAME` held forms close to `form`: those it ends, then look-alikes."""
    tails = sorted(other for other in held if other.endswith("/" + form))
    alike = get_close_matches(form, list(held), n=CLOSEST_PER_NAME)
    return list(dict.fromkeys([*tails, *alike]))[:CLOSEST_PER_NAME]
