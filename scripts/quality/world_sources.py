"""Entities of the world corpus, read from CLDR (`babel`) and ISO 3166-2 (`pycountry`).

Each entity is a dict in the corpus row format (see the package docstring)
plus private `_`-prefixed fields the query families read and the writer
drops. Every entity carries a `description` the write path embeds.
"""

from __future__ import annotations

import datetime
import gettext
from typing import Any

import pycountry
from babel import Locale
from babel.core import UnknownLocaleError, get_global
from babel.numbers import get_territory_currencies

from .common import fold

#: The day "current" currencies are read for (fixed, so the corpus never drifts).
AS_OF = datetime.date(2024, 1, 1)
#: Locales whose CLDR names feed the other-language family (Latin and other scripts).
LOCALES = (
    "de", "fr", "es", "it", "pt", "nl", "pl", "sv", "fi", "tr", "cs", "hu", "id", "vi",
    "ru", "uk", "el", "ja", "zh", "ko", "ar", "he", "hi", "th",
)  # fmt: skip
#: Official status CLDR gives a language in a territory that counts as "official".
OFFICIAL = ("official", "de_facto_official")
EN = Locale("en")


def territories() -> list[str]:
    """CLDR's two-letter territories that are also ISO 3166-1 countries, sorted."""
    return sorted(t for t in EN.territories if len(t) == 2 and pycountry.countries.get(alpha_2=t))


def territory_name(code: str) -> str:
    return str(EN.territories[code])


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def currencies() -> list[dict[str, Any]]:
    """Every currency legal tender somewhere on `AS_OF`, with where."""
    where: dict[str, list[str]] = {}
    for t in territories():
        for code in get_territory_currencies(t, AS_OF):
            where.setdefault(code, []).append(t)
    ents = []
    for code in sorted(where):
        if code not in EN.currencies:
            continue
        places = sorted(territory_name(t) for t in where[code])
        ents.append(
            {
                "key": f"currency:{code}",
                "name": str(EN.currencies[code]),
                "entity_type": "currency",
                "description": f"Currency with ISO 4217 code {code}, legal tender in "
                f"{_join(places)}.",
                "aliases": [],
                "properties": {"iso_4217": code},
                "_territories": where[code],
                "_symbols": [code],
                "_locale_names": {
                    loc: str(Locale.parse(loc).currencies[code])
                    for loc in LOCALES
                    if code in Locale.parse(loc).currencies
                },
            }
        )
    return ents


def languages() -> list[dict[str, Any]]:
    """Every language official (or de facto official) somewhere, with where and its script."""
    where: dict[str, list[str]] = {}
    table = get_global("territory_languages")
    for t in territories():
        for lang, info in sorted(table.get(t, {}).items()):
            if info.get("official_status") in OFFICIAL and "_" not in lang:
                where.setdefault(lang, []).append(t)
    likely = get_global("likely_subtags")
    ents = []
    for lang in sorted(where):
        if lang not in EN.languages:
            continue
        script = likely.get(lang, "").split("_")[1:2]
        script_name = str(EN.scripts.get(script[0], "")) if script else ""
        places = sorted(territory_name(t) for t in where[lang])
        description = f"Language with ISO 639 code {lang}, official in {_join(places)}."
        if script_name:
            description += f" Usually written in the {script_name} script."
        names = {}
        for loc in (*LOCALES, lang):
            try:
                found = Locale.parse(loc).languages.get(lang)
            except (ValueError, LookupError, UnknownLocaleError):
                continue
            if found:
                names[loc] = str(found)
        ents.append(
            {
                "key": f"language:{lang}",
                "name": str(EN.languages[lang]),
                "entity_type": "language",
                "description": description,
                "aliases": [],
                "properties": {"iso_639": lang},
                "_territories": where[lang],
                "_locale_names": names,
            }
        )
    return ents


def subdivisions() -> list[dict[str, Any]]:
    """Every top-level ISO 3166-2 subdivision, named in English, with its other names."""
    catalogues = {
        lang: gettext.translation("iso3166-2", pycountry.LOCALES_DIR, languages=[lang])
        for lang in ("en", *(loc for loc in LOCALES if loc != "zh"), "zh_CN")
        if gettext.find("iso3166-2", pycountry.LOCALES_DIR, languages=[lang])
    }
    ents = []
    for s in sorted(pycountry.subdivisions, key=lambda s: s.code):
        if s.parent_code is not None:
            continue
        local = s.name
        english = catalogues["en"].gettext(local)
        country = territory_name(s.country_code) if s.country_code in EN.territories else None
        if country is None:
            continue
        names = {lang: tr.gettext(local) for lang, tr in catalogues.items() if lang != "en"}
        ents.append(
            {
                "key": f"subdivision:{s.code}",
                "name": english,
                "entity_type": "subdivision",
                "description": f"{s.type} of {country} (ISO 3166-2 {s.code}).",
                "aliases": [],
                "properties": {"iso_3166_2": s.code, "country": s.country_code},
                "_local": local,
                "_locale_names": {lang: n for lang, n in names.items() if fold(n) != fold(english)},
            }
        )
    return ents
