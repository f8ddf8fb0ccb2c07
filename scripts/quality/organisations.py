# ruff: noqa: E501  (long comments kept verbatim from the original generator)
"""Synthetic organisations built from real words (FEBRL surnames and suburbs, sectors, legal forms)."""

from __future__ import annotations

import re

from .common import nice, rng_for

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
