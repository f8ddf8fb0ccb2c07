"""The world corpus (`world_corpus.json`): described currencies, languages, places, elements, units.

Query families (the `shape` of each query):

- `exact`: an entity's English name (a sanity baseline);
- `descriptive`: a lay paraphrase in place of the name ("money used in
  Japan"), graded by every entity the paraphrase fits (all currencies legal
  in Japan), and the hand-written lay questions about elements ("metal in
  your blood that carries oxygen");
- `other_language`: a currency's or language's CLDR name in another language
  or script ("japanischer Yen", "日本円", "Deutsch");
- `place_spelling`: a subdivision's name in another language, script or
  transliteration ("Bavière", "Москва" for "Moskva");
- `abbreviation`: a code or symbol in place of the name ("JPY", "Fe",
  "kWh"), exact case, graded by every entity with that symbol ("Pa":
  protactinium and pascal);
- `synonym`: another name of a unit ("metre", "pole" for "rod"), from pint's
  aliases and from CLDR's English display names ("km/hr", "sq feet");
- `no_match`: real names the corpus does not hold (historic currencies,
  languages official nowhere) and invented ones.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from babel import Locale

from .common import SEED, fold, rng_for, split_of, write_lines_json
from .element_queries import LAY_QUESTIONS
from .invented import invented_token
from .world_science import cldr_unit_names, element_entities, unit_entities
from .world_sources import (
    AS_OF,
    EN,
    currencies,
    languages,
    subdivisions,
    territories,
    territory_name,
)

SHAPES = (
    "exact",
    "descriptive",
    "other_language",
    "place_spelling",
    "abbreviation",
    "synonym",
    "no_match",
)
CURRENCY_PHRASES = (
    "the currency of {}",
    "money used in {}",
    "what do people pay with in {}",
    "the legal tender in {}",
    "banknotes and coins of {}",
)
LANGUAGE_PHRASES = (
    "the official language of {}",
    "what language do they speak in {}",
    "a language with official status in {}",
    "the national tongue of {}",
)
SIZES = {
    "exact": 60,
    "descriptive": 300,
    "other_language": 600,
    "place_spelling": 300,
    "abbreviation": 200,  # every currency code (154): more fit queries per family (ADR 0122)
    "element_symbol": 120,  # every element symbol
    "unit_symbol": 200,  # every unit symbol
    "synonym": 100,
    "no_match": 150,
}


class Queries:
    """Collects graded queries per shape; ids and halves are given on `rows()`."""

    def __init__(self, entities: list[dict[str, Any]]) -> None:
        self.types = {e["key"]: e["entity_type"] for e in entities}
        self.by_shape: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.seen: dict[str, set[str]] = defaultdict(set)

    def add(self, shape: str, query: str, targets: Iterable[str], **extra: Any) -> bool:
        """Add one query unless its shape already has it (folded); True if added."""
        if fold(query) in self.seen[shape]:
            return False
        self.seen[shape].add(fold(query))
        keys = sorted(set(targets))
        self.by_shape[shape].append(
            {
                "query": query,
                "target": keys[0] if keys else None,
                "targets": keys,
                "target_type": self.types[keys[0]] if keys else None,
                **extra,
            }
        )
        return True

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for shape in SHAPES:
            for i, rec in enumerate(self.by_shape[shape]):
                qid = f"world-{shape}-{i:04d}"
                out.append({"id": qid, "shape": shape, "split": split_of(qid), **rec})
        return out


def name_index(entities: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Folded name in any language (English, local, CLDR, ISO 3166-2 catalogues) -> keys."""
    index: dict[str, set[str]] = defaultdict(set)
    for e in entities:
        others = (*e.get("_locale_names", {}).values(), *e.get("_synonyms", ()))
        for n in (e["name"], e.get("_local", e["name"]), *others):
            index[fold(n)].add(e["key"])
    return index


def build(out_dir: Path) -> dict[str, Any]:
    money, tongues, places = currencies(), languages(), subdivisions()
    chemistry, units = element_entities(), unit_entities()
    entities = money + tongues + places + chemistry + units
    names = name_index(entities)
    symbols: dict[str, set[str]] = defaultdict(set)
    for e in entities:
        for symbol in e.get("_symbols", ()):
            symbols[symbol].add(e["key"])
    qs = Queries(entities)

    r = rng_for("world:exact")
    for e in r.sample(entities, SIZES["exact"]):
        qs.add("exact", e["name"], names[fold(e["name"])], source=e["entity_type"])

    r = rng_for("world:descriptive")
    by_territory: dict[tuple[str, str], set[str]] = defaultdict(set)
    for e in money + tongues:
        for t in e["_territories"]:
            by_territory[(e["entity_type"], t)].add(e["key"])
    options = sorted(by_territory)
    while len(qs.by_shape["descriptive"]) < SIZES["descriptive"]:
        kind, t = r.choice(options)
        phrases = CURRENCY_PHRASES if kind == "currency" else LANGUAGE_PHRASES
        phrase = r.choice(phrases)
        qs.add(
            "descriptive",
            phrase.format(territory_name(t)),
            by_territory[(kind, t)],
            source=f"cldr_{kind}_of_territory",
            template=phrase,
        )

    for text, symbol, others in LAY_QUESTIONS:
        keys = [k for s in (symbol, *others) if (k := f"element:{s}") in qs.types]
        qs.add("descriptive", text, keys, source="hand_written_element_question")

    r = rng_for("world:other_language")
    pool = [
        (e, loc, n)
        for e in money + tongues
        for loc, n in sorted(e["_locale_names"].items())
        if fold(n) != fold(e["name"])
    ]
    for e, loc, n in r.sample(pool, len(pool)):
        if len(qs.by_shape["other_language"]) >= SIZES["other_language"]:
            break
        qs.add(
            "other_language",
            n,
            names[fold(n)],
            source=f"cldr_{e['entity_type']}_name",
            lang=loc,
            autonym=e["entity_type"] == "language" and loc == e["properties"]["iso_639"],
        )

    r = rng_for("world:place_spelling")
    pool = [
        (e, lang, n)
        for e in places
        for lang, n in sorted({**e["_locale_names"], "local": e["_local"]}.items())
        if fold(n) != fold(e["name"])
    ]
    for _e, lang, n in r.sample(pool, len(pool)):
        if len(qs.by_shape["place_spelling"]) >= SIZES["place_spelling"]:
            break
        qs.add("place_spelling", n, names[fold(n)], source="pycountry_iso3166-2", lang=lang)

    r = rng_for("world:abbreviation")
    for e in r.sample(money, min(len(money), SIZES["abbreviation"])):
        code = e["properties"]["iso_4217"]
        qs.add("abbreviation", code, [e["key"]], source="iso_4217_code")
    for e in r.sample(chemistry, min(len(chemistry), SIZES["element_symbol"])):
        symbol = e["properties"]["symbol"]
        qs.add("abbreviation", symbol, symbols[symbol], source="element_symbol")
    with_symbol = [e for e in units if e["_symbols"]]
    for e in r.sample(with_symbol, min(len(with_symbol), SIZES["unit_symbol"])):
        symbol = e["_symbols"][0]
        qs.add("abbreviation", symbol, symbols[symbol], source="pint_unit_symbol")

    r = rng_for("world:synonym")
    pool = [(e, n) for e in units for n in e["_synonyms"]]
    for _e, n in r.sample(pool, min(len(pool), SIZES["synonym"])):
        qs.add("synonym", n, names[fold(n)], source="pint_unit_alias")
    for e, n in cldr_unit_names(units):  # a second source, after pint's (ADR 0230)
        qs.add("synonym", n, {e["key"], *names.get(fold(n), ())}, source="cldr_unit_name")

    add_no_match(qs, names, money, tongues)
    meta = {
        "description": "Graded entity-retrieval corpus of described entities: currencies, "
        "languages, subdivisions, chemical elements, units; descriptive, other-language, "
        "place-spelling, abbreviation, synonym and no-match queries.",
        "generator": "scripts/generate_quality_corpus.py",
        "seed": SEED,
        "as_of": AS_OF.isoformat(),
        "grading": "a query is a hit when any key in `targets` is retrieved; `targets` holds every "
        "entity the query fits; no_match queries have target null and targets [].",
        "sources": {
            "currencies": "babel (CLDR) currency names and territory currencies on as_of",
            "languages": "babel (CLDR) language names, territory_languages official status, "
            "likely_subtags script",
            "subdivisions": "pycountry ISO 3166-2 (top level) and its iso3166-2 gettext catalogues",
            "elements": "mendeleev elements.db (name, symbol, description); lay questions "
            "hand-written for this corpus",
            "units": "pint default registry (names, symbols, aliases, dimensionality, value in "
            "SI base units)",
        },
    }
    for e in entities:
        for k in [k for k in e if k.startswith("_")]:
            del e[k]
    corpus = {"meta": meta, "entities": entities, "queries": qs.rows()}
    write_lines_json(out_dir / "world_corpus.json", corpus)
    return corpus


def add_no_match(
    qs: Queries,
    names: dict[str, set[str]],
    money: list[dict[str, Any]],
    tongues: list[dict[str, Any]],
) -> None:
    """Historic currencies, languages official nowhere, and invented names and places."""
    r = rng_for("world:no_match")
    held = {e["key"].split(":")[1] for e in money + tongues}
    absent = [
        (str(n), "cldr_historic_currency")
        for c, n in sorted(EN.currencies.items())
        if c not in held
    ] + [
        (str(n), "cldr_language_official_nowhere")
        for c, n in sorted(EN.languages.items())
        if c not in held and "_" not in c
    ]
    # A dated name ("Metical (1980-2006)") is too close to the held one to call a no-match.
    absent = [(n, s) for n, s in absent if fold(n) not in names and "(" not in n]
    for n, source in r.sample(absent, 100):
        qs.add("no_match", n, [], source=source)
    countries = {fold(territory_name(t)) for t in territories()}
    while len(qs.by_shape["no_match"]) < SIZES["no_match"]:
        place = invented_token(r)
        if fold(place) in names or fold(place) in countries:
            continue
        phrase = r.choice((*CURRENCY_PHRASES, *LANGUAGE_PHRASES, "{} Province", "Region of {}"))
        qs.add("no_match", phrase.format(place), [], source="invented_place", template=phrase)


def locale_name(loc: str) -> str:
    """The English name of a locale code used in the corpus (for the stats)."""
    return str(Locale.parse(loc.replace("local", "en")).get_display_name("en"))
