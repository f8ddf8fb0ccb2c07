"""Chemical elements (`mendeleev`) and units of measurement (`pint`) for the world corpus.

Same row format as `world_sources.py`: corpus fields plus private `_` fields
(`_symbols`: the exact-case abbreviations the entity answers to; `_synonyms`:
other names) that the query families read and the writer drops;
`cldr_unit_names` adds CLDR's English display names of the units (`babel`),
read only as synonym queries (ADR 0230).
"""

from __future__ import annotations

import math
import re
from typing import Any

import pint
from babel import Locale
from babel.units import get_unit_name

from .common import fold
from .element_passages import clean, elements


def element_entities() -> list[dict[str, Any]]:
    """Every element mendeleev describes, described by its own technical text."""
    return [
        {
            "key": f"element:{e['symbol']}",
            "name": e["name"],
            "entity_type": "chemical element",
            "description": clean(e["description"]),
            "aliases": [],
            "properties": {"symbol": e["symbol"], "atomic_number": e["number"]},
            "_symbols": [e["symbol"]],
            "_synonyms": [],
        }
        for e in elements()
    ]


def _dims(registry: pint.UnitRegistry, name: str) -> tuple[tuple[str, float], ...]:
    """A unit's or dimension's dimensionality in one canonical (sorted) form."""
    return tuple(sorted(dict(registry.get_dimensionality(name).items()).items()))


def _kinds(registry: pint.UnitRegistry) -> dict[tuple[tuple[str, float], ...], str]:
    """Dimensionality -> the first name pint's definitions give it ("length", "force", ...)."""
    kinds: dict[tuple[tuple[str, float], ...], str] = {}
    for name in registry._dimensions:  # definition order: base dimensions, then common ones
        kinds.setdefault(_dims(registry, name), name.strip("[]").replace("_", " "))
    return kinds


#: A real word or abbreviation, not one of pint's identifiers ("a_u_force", "V_it", "Δcelsius").
_WORDLIKE = re.compile(r"(?!Δ)[^\W\d_][\w'°µ/.-]*( [^\W\d_][\w'°µ/.-]*)*")


def _spaced(name: str) -> str:
    return name.replace("_", " ")


def _is_plural_of(alias: str, name: str) -> bool:
    return alias in (name + "s", name + "es", re.sub("y$", "ies", name))


def unit_entities() -> list[dict[str, Any]]:
    """Every named unit of pint's default registry (not prefixed forms), with what it equals."""
    registry = pint.UnitRegistry()
    kinds = _kinds(registry)
    ents = []
    for key, unit in sorted(registry._units.items()):
        if key != unit.name:
            continue
        dims = _dims(registry, key)
        kind = kinds.get(
            dims, str(registry.get_dimensionality(key)).replace("[", "").replace("]", "")
        )
        description = f"Unit of {kind}" if dims else "Dimensionless unit"
        if unit.is_multiplicative:
            base = registry.Quantity(1, key).to_base_units()
            if math.isfinite(base.magnitude) and str(base.units) != key:
                units = f" {base.units:D}" if dims else ""
                description += f", equal to {base.magnitude:.6g}{units} in SI base units"
        symbol = unit.defined_symbol
        ents.append(
            {
                "key": f"unit:{key}",
                "name": _spaced(key),
                "entity_type": "unit of measurement",
                "description": description + ".",
                "aliases": [],
                "properties": {"pint_name": key} | ({"symbol": symbol} if symbol else {}),
                "_symbols": [symbol]
                if symbol and symbol != key and _WORDLIKE.fullmatch(symbol) and "_" not in symbol
                else [],
                "_synonyms": [
                    _spaced(a)
                    for a in unit.aliases
                    if "_" not in a.strip("_")
                    and _WORDLIKE.fullmatch(a)
                    and not _is_plural_of(a, key)
                    and _spaced(a).casefold() != _spaced(key).casefold()
                ],
            }
        )
    return ents


#: A CLDR unit category and a pint unit of its dimension: a CLDR unit mapped
#: onto a pint unit of another dimension (CLDR's fluid "volume-dram" onto
#: pint's mass "dram") is dropped. Categories not listed are not checked.
_CATEGORY_UNIT = {
    "angle": "radian",
    "area": "meter ** 2",
    "duration": "second",
    "energy": "joule",
    "force": "newton",
    "length": "meter",
    "mass": "gram",
    "power": "watt",
    "pressure": "pascal",
    "speed": "meter / second",
    "temperature": "kelvin",
    "volume": "liter",
}


def cldr_unit_names(units: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """(unit entity, English CLDR display name) for every CLDR unit that names a pint unit.

    A CLDR unit id ("energy-british-thermal-unit") names the pint unit its
    last part resolves to ("british_thermal_unit"), when pint holds it as a
    named unit of the category's dimension. Its long, short and narrow
    English display names ("km/hr", "wk", "qtr", "sq feet") are kept unless
    the unit already answers to the name (its name, symbol or a pint
    alias), the name is a plural of one of those or of a kept display
    name ("mins", "revolutions"), or it is not word-like. Sorted by CLDR id.
    """
    registry = pint.UnitRegistry()
    by_name = {e["properties"]["pint_name"]: e for e in units}
    names = Locale.parse("en").unit_display_names
    out = []
    for cldr_id in sorted(names):
        category, _, part = cldr_id.partition("-")
        try:
            entity = by_name.get(registry.get_name(part.replace("-", "_")))
            if entity is None or (
                category in _CATEGORY_UNIT
                and _dims(registry, entity["properties"]["pint_name"])
                != _dims(registry, _CATEGORY_UNIT[category])
            ):
                continue
        except pint.errors.PintError:
            continue
        known = {
            fold(n)
            for n in (
                entity["name"],
                *entity["_symbols"],
                *entity["_synonyms"],
                entity["properties"].get("symbol") or "",
            )
        }
        for length in ("long", "short", "narrow"):
            name = get_unit_name(cldr_id, length=length, locale="en")
            if not name or not _WORDLIKE.fullmatch(name) or _plural_or_known(fold(name), known):
                continue
            known.add(fold(name))
            out.append((entity, name))
    return out


def _plural_or_known(name: str, known: set[str]) -> bool:
    return name in known or any(_is_plural_of(name, k) for k in known)
