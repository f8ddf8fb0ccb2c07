"""The biomedical corpora: `bio_corpus.json` (diseases, anatomy, cell types, chemicals, drugs)
and `icd_corpus.json` (ICD-10-CM diagnosis codes), each one tenant.

Entities hold their vocabulary's preferred name and a templated description
(what kind of thing, its identifier, the names of its nearest ancestors), and
no aliases: every family asks for a name or a wording the graph does not store.

Query families (`shape`), all graded by every entity bearing the query as a
name or synonym in its source (and, for a definition, every entity with the
defined term's name):

- `disease_synonym`, `anatomy_synonym`, `cell_synonym`: a synonym Mondo,
  Uberon or the Cell Ontology gives for the term ("breast carcinoma");
- `chemical_synonym`: another PubChem name of a common chemical, word-like
  names only (no digits, no punctuation beyond hyphens and apostrophes; one
  word only from 7 letters, since PubChem writes "dmac" in lower case);
- `brand_name`: a brand or other name MedlinePlus lists for a drug, sharing
  no word with its generic name ("tylenol" for acetaminophen);
- `definition`: a term's definition (its first sentence) as the query, from
  Mondo, Uberon and the Cell Ontology (source names which);
- `inclusion_term` (ICD corpus): an inclusion term listed under an ICD-10-CM
  code ("Classical cholera" under A00.0).

A synonym equal to some entity's name, or the target's name with its words
reordered or padded with filler ("of", "the", "disease": `FILLER`), is no
query: that would be an exact match in other order. Nor is a wording with an
abbreviation in it ("PRPP synthetase superactivity"): abbreviations and
their expansions are kept for independent evaluation.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .bio_sources import (
    Term,
    icd10cm_codes,
    icd10cm_release,
    medline_drugs,
    ontology_release,
    ontology_terms,
    pubchem_chemicals,
    version,
)
from .common import SEED, fold, rng_for, split_of, write_lines_json

BIO_SHAPES = (
    "disease_synonym",
    "anatomy_synonym",
    "cell_synonym",
    "chemical_synonym",
    "brand_name",
    "definition",
)
ICD_SHAPES = ("inclusion_term",)
#: Terms sampled per ontology: (entity type, kind in the description, entities, synonym queries).
ONTOLOGY_PLAN = {
    "MONDO": ("disease", "Disease", 1500, "disease_synonym", 300),
    "UBERON": ("anatomical structure", "Anatomical structure", 1000, "anatomy_synonym", 300),
    "CL": ("cell type", "Cell type", 600, "cell_synonym", 200),
}
DEFINITIONS_PER_ONTOLOGY = 100
CHEMICAL_QUERIES = 300
BRAND_QUERIES = 300
ICD_CATEGORIES_WITH_CODES = 600
ICD_QUERIES = 300
#: A name more entities than this bear says too little to grade by.
MAX_TARGETS = 5
_WORDLIKE = re.compile(r"^[a-z][a-z' -]*[a-z]$")
#: A word in capitals ("PRPP", "ECA5", "TAC3"), roman numerals aside: an abbreviation.
ABBREVIATION = re.compile(r"\b(?![IVX]+\b)[A-Z0-9]*[A-Z][A-Z0-9]+\b")


#: Words that make no new wording: "X of Y" for "Y X", "(disease)" added.
FILLER = frozenset(
    [
        "a",
        "an",
        "and",
        "by",
        "disease",
        "disorder",
        "for",
        "in",
        "of",
        "on",
        "or",
        "the",
        "to",
        "with",
    ]
)


def words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[0-9a-z]+", fold(text)))


def content_words(text: str) -> frozenset[str]:
    return words(text) - FILLER


class Queries:
    """Graded queries per shape, each text once per shape; ids and halves given by `rows()`."""

    def __init__(self, prefix: str, shapes: Sequence[str], types: dict[str, str]) -> None:
        self.prefix, self.shapes, self.types = prefix, shapes, types
        self.by_shape: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.seen: dict[str, set[str]] = defaultdict(set)

    def add(self, shape: str, query: str, own: str, targets: Iterable[str], source: str) -> None:
        if fold(query) in self.seen[shape]:
            return
        keys = sorted({own, *targets})
        if len(keys) > MAX_TARGETS:
            return
        self.seen[shape].add(fold(query))
        self.by_shape[shape].append(
            {
                "query": query,
                "target": own,
                "targets": keys,
                "target_type": self.types[own],
                "source": source,
            }
        )

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for shape in self.shapes:
            for i, rec in enumerate(self.by_shape[shape]):
                qid = f"{self.prefix}-{shape}-{i:04d}"
                out.append({"id": qid, "shape": shape, "split": split_of(qid), **rec})
        return out


def is_new_wording(name: str, of: str, names: dict[str, set[str]]) -> bool:
    """A synonym worth asking: no entity's name, no abbreviation, nor `of`'s words reordered."""
    return (
        len(fold(name)) >= 4
        and not ABBREVIATION.search(name)
        and fold(name) not in names
        and content_words(name) != content_words(of)
    )


def _described(kind: str, ident: str, parents: Sequence[str]) -> str:
    under = "; ".join(parents)
    return f"{kind} {ident}" + (f", classified under {under}." if under else ".")


def _ontology_entities(
    out: list[dict[str, Any]], picked: dict[str, list[Term]]
) -> dict[str, list[Term]]:
    for name, (etype, kind, size, _shape, _n) in ONTOLOGY_PLAN.items():
        terms = ontology_terms(name)
        chosen = rng_for(f"bio:{name}:entities").sample(sorted(terms), size)
        picked[name] = [terms[i] for i in sorted(chosen)]
        for term in picked[name]:
            parents = [terms[p].label for p in term.parents if p in terms]
            out.append(
                {
                    "key": term.id,
                    "name": term.label,
                    "entity_type": etype,
                    "description": _described(kind, term.id, parents),
                    "aliases": [],
                    "properties": {"source": name.lower()},
                    "_names": [term.label, *term.synonyms],
                }
            )
    return picked


def _index(entities: Sequence[dict[str, Any]], labels_only: bool = False) -> dict[str, set[str]]:
    index: dict[str, set[str]] = defaultdict(set)
    for e in entities:
        for n in [e["name"]] if labels_only else e["_names"]:
            index[fold(n)].add(e["key"])
    return index


def build_bio(out_dir: Path) -> dict[str, Any]:
    entities: list[dict[str, Any]] = []
    picked = _ontology_entities(entities, {})
    chemicals = pubchem_chemicals()
    for c in chemicals:
        entities.append(
            {
                "key": f"PUBCHEM:{c.cid}",
                "name": c.name,
                "entity_type": "chemical",
                "description": f"Chemical compound, formula {c.formula}, CAS {c.cas}.",
                "aliases": [],
                "properties": {"source": "pubchem"},
                "_names": [c.name, *c.synonyms],
            }
        )
    drugs = medline_drugs()
    for d in drugs:
        entities.append(
            {
                "key": f"MEDLINEPLUS:{d.medline_plus_id}",
                "name": d.name,
                "entity_type": "drug",
                "description": f"Medicine, MedlinePlus drug information {d.medline_plus_id}.",
                "aliases": [],
                "properties": {"source": "medlineplus"},
                "_names": [d.name, *d.variants],
            }
        )
    names, labels = _index(entities), _index(entities, labels_only=True)
    qs = Queries("bio", BIO_SHAPES, {e["key"]: e["entity_type"] for e in entities})
    for name, (_etype, _kind, _size, shape, n) in ONTOLOGY_PLAN.items():
        _synonym_queries(qs, shape, name.lower(), n, labels, names, [
            (t.id, t.label, [s for s in t.synonyms if is_new_wording(s, t.label, labels)])
            for t in picked[name]
        ])  # fmt: skip
    _synonym_queries(qs, "chemical_synonym", "pubchem", CHEMICAL_QUERIES, labels, names, [
        (f"PUBCHEM:{c.cid}", c.name,
         [s for s in c.synonyms if _WORDLIKE.match(s) and is_new_wording(s, c.name, labels)
          and (" " in s or len(s) >= 7)])
        for c in chemicals
    ])  # fmt: skip
    _synonym_queries(qs, "brand_name", "medlineplus", BRAND_QUERIES, labels, names, [
        (f"MEDLINEPLUS:{d.medline_plus_id}", d.name,
         [v for v in d.variants
          if not words(v) & words(d.name) and is_new_wording(v, d.name, labels)])
        for d in drugs
    ])  # fmt: skip
    for name in ONTOLOGY_PLAN:
        defined = [t for t in picked[name] if len(_first_sentence(t.definition)) >= 30]
        rng = rng_for(f"bio:{name}:definition")
        for t in sorted(rng.sample(defined, DEFINITIONS_PER_ONTOLOGY), key=lambda t: t.id):
            qs.add(
                "definition",
                _first_sentence(t.definition),
                t.id,
                labels[fold(t.label)],
                name.lower(),
            )
    meta = {
        "description": "Graded entity-retrieval corpus of biomedical vocabulary: diseases (Mondo), "
        "anatomy (Uberon), cell types (Cell Ontology), common chemicals (PubChem), drugs "
        "(MedlinePlus); synonym, brand-name and definition queries the graph stores no alias for.",
        "generator": "scripts/generate_quality_corpus.py (scripts/quality/bio_corpus.py)",
        "seed": SEED,
        "grading": "a query is a hit when any key in `targets` is retrieved; `targets` holds every "
        "entity bearing the query as a name or synonym in its source (for a definition, every "
        "entity with the defined term's name); names borne by more than 5 entities are no query.",
        "sources": {
            "ontologies": f"cellxgene-ontology-guide {version('cellxgene-ontology-guide')} (MIT): "
            + ", ".join(f"{n} {ontology_release(n)}" for n in ONTOLOGY_PLAN)
            + " (Mondo CC BY 4.0, Uberon CC BY 3.0, Cell Ontology CC BY 4.0)",
            "chemicals": f"chemicals {version('chemicals')} (MIT): "
            "Identifiers/chemical identifiers pubchem small.tsv (PubChem names and synonyms)",
            "drugs": f"drug-named-entity-recognition {version('drug-named-entity-recognition')} "
            "(MIT): drug_ner_dictionary.pkl.bz2, drugs with a MedlinePlus id and their names",
        },
    }
    return _write(out_dir / "bio_corpus.json", meta, entities, qs)


def _first_sentence(text: str) -> str:
    first = re.split(r"(?<=[a-z0-9)])\. ", " ".join(text.split()), maxsplit=1)[0]
    return first.rstrip(".")


def _synonym_queries(
    qs: Queries,
    shape: str,
    source: str,
    n: int,
    labels: dict[str, set[str]],
    names: dict[str, set[str]],
    offers: Sequence[tuple[str, str, Sequence[str]]],
) -> None:
    """One synonym per entity that has one, `n` entities at most, drawn by the shape's RNG."""
    rng = rng_for(f"bio:{shape}:{source}")
    eligible = [(key, label, sorted(s)) for key, label, s in offers if s]
    for key, label, synonyms in sorted(rng.sample(eligible, min(n, len(eligible)))):
        synonym = rng.choice(synonyms)
        qs.add(shape, synonym, key, names[fold(synonym)] | labels[fold(label)], source)


def _write(
    path: Path, meta: dict[str, Any], entities: list[dict[str, Any]], qs: Queries
) -> dict[str, Any]:
    for e in entities:
        for k in [k for k in e if k.startswith("_")]:
            del e[k]
    corpus = {"meta": meta, "entities": entities, "queries": qs.rows()}
    write_lines_json(path, corpus)
    return corpus


def build_icd(out_dir: Path) -> dict[str, Any]:
    codes = icd10cm_codes()
    by_code = {c.code: c for c in codes}
    categories = sorted(c.code for c in codes if c.parent is None)
    with_codes = set(rng_for("icd:categories").sample(categories, ICD_CATEGORIES_WITH_CODES))
    kept = [c for c in codes if c.parent is None or (c.parent in with_codes and len(c.code) == 5)]
    entities = []
    for c in kept:
        parent = f" under {c.parent} {by_code[c.parent].description}" if c.parent else ""
        entities.append(
            {
                "key": c.code,
                "name": c.description,
                "entity_type": "diagnosis",
                "description": f"ICD-10-CM code {c.code}{parent}; chapter: {c.chapter}.",
                "aliases": [],
                "properties": {"source": "icd10cm"},
                "_names": [c.description, *c.inclusion_terms],
            }
        )
    names, labels = _index(entities), _index(entities, labels_only=True)
    qs = Queries("icd", ICD_SHAPES, {e["key"]: e["entity_type"] for e in entities})
    _synonym_queries(qs, "inclusion_term", "icd10cm", ICD_QUERIES, labels, names, [
        (c.code, c.description,
         [t for t in c.inclusion_terms if is_new_wording(t, c.description, labels)])
        for c in kept
    ])  # fmt: skip
    meta = {
        "description": "Graded entity-retrieval corpus of ICD-10-CM diagnosis codes (every "
        f"category, and the subcategories of {ICD_CATEGORIES_WITH_CODES} drawn categories); "
        "queries are the inclusion terms listed under a code, stored as no alias.",
        "generator": "scripts/generate_quality_corpus.py (scripts/quality/bio_corpus.py)",
        "seed": SEED,
        "grading": "a query is a hit when any key in `targets` is retrieved: the code it is "
        "listed under and every code bearing the same wording as description or inclusion term.",
        "sources": {
            "icd10cm": f"simple-icd-10-cm {version('simple-icd-10-cm')} (MIT): "
            f"{icd10cm_release()} (ICD-10-CM, CDC National Center for Health Statistics, "
            "a US government work in the public domain)",
        },
    }
    return _write(out_dir / "icd_corpus.json", meta, entities, qs)
