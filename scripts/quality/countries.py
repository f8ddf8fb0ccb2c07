"""Countries from pycountry's ISO 3166-1 table, with the languages their alias queries come from."""

from __future__ import annotations

from importlib.metadata import version

import pycountry

from .common import fold

ALIAS_LANGS = [
    "de",
    "fr",
    "es",
    "it",
    "pt",
    "nl",
    "pl",
    "sv",
    "fi",
    "tr",
    "ru",
    "ja",
    "zh_CN",
    "ar",
    "el",
]
ALIAS_PER_LANG = 13


def load_countries():
    ents = []
    for c in sorted(pycountry.countries, key=lambda c: c.alpha_2):
        aliases = []
        for attr in ("common_name", "official_name"):
            v = getattr(c, attr, None)
            if v and fold(v) != fold(c.name) and v not in aliases:
                aliases.append(v)
        ents.append(
            {
                "key": f"country:{c.alpha_2}",
                "name": c.name,
                "entity_type": "country",
                "aliases": aliases,
                "properties": {"alpha_2": c.alpha_2, "alpha_3": c.alpha_3, "numeric": c.numeric},
                "_msgid": c.name,
            }
        )
    return ents


def pycountry_version() -> str:
    return version("pycountry")
