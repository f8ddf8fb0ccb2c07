"""ArguAna in BEIR's layout, rebuilt from the counterargument corpus its authors released.

BEIR's ArguAna (CC BY 4.0) is Wachsmuth, Syed and Stein's counterargument
corpus (2018): a test point is a query, the counter written against it is its
one relevant document, and every argument of every split is a document. The
release keeps one text file per argument,
`SPLIT/TOPIC/DEBATE/{pro,con}/{pro,con}NN{a-point,b-counter}.txt`, and each
debate's metadata. BEIR's corpus file is larger than a fetched snapshot
keeps; this module writes the same ids, texts, titles and documents from the
release:

- id: `SPLIT-TOPIC-INITIALS-ARGUMENT`, INITIALS the first letter of each
  hyphenated word of the debate folder (`test-environment-aeghhgwpe-pro02b`);
- text: the file with each line break a space, every `http...` address cut
  (the spaces around it kept), and its outer blank space stripped;
- title: the debate folder's words for a test debate, else empty;
- documents: every test counter (each is a query's relevant document), then
  every other argument unless its text equals one kept before it, reading
  test, training, validation;
- queries: the test points, or another split's as a development set.

Checked against BEIR's files: 8,674 documents, as BEIR has; the 1,406 query
texts equal a published copy of BEIR's `queries.jsonl`; the three documents
`ir_datasets` publishes as checks match (id, title, text length); written as
BEIR writes it, the corpus is 9,829,965 characters against BEIR's 9,829,628
(which of two equal texts is kept differs now and then). 5 of the 1,406
qrels name a counter that neither the release nor, by its count, BEIR's
corpus holds.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .beir import Collection, load_collection

SPLITS = ("test", "training", "validation")
_URL = re.compile(r"http\S+")
_ARGUMENT = re.compile(r"^(?P<side>pro|con)(?P<n>\d+)(?P<part>[ab])-(?:point|counter)\.txt$")


@dataclass(frozen=True)
class Argument:
    """One argument file of the release, read as BEIR reads it."""

    id: str
    split: str
    title: str
    text: str

    @property
    def is_point(self) -> bool:
        return self.id.endswith("a")


def _initials(folder: str) -> str:
    return "".join(word[0] for word in folder.split("-") if word)


def read_release(arguments: Path) -> list[Argument]:
    """Every argument under `arguments` (the release's `02-extracted-arguments`), in path order."""
    found = []
    for split in SPLITS:
        for debate in sorted(p for p in (arguments / split).glob("*/*") if p.is_dir()):
            title = debate.name.replace("-", " ") if split == "test" else ""
            prefix = f"{split}-{debate.parent.name}-{_initials(debate.name)}"
            for path in sorted(debate.glob("*/*.txt")):
                if (match := _ARGUMENT.match(path.name)) is None:
                    continue
                text = _URL.sub("", path.read_text(encoding="utf-8").replace("\n", " ")).strip()
                name = f"{match['side']}{match['n']}{match['part']}"
                found.append(Argument(f"{prefix}-{name}", split, title, text))
    if not found:
        raise FileNotFoundError(f"{arguments} holds no SPLIT/TOPIC/DEBATE/*/*-point.txt files")
    return found


def prepare_arguana_release(arguments: Path, into: Path, split: str = "test") -> Collection:
    """Write ArguAna from the release's `02-extracted-arguments` folder in BEIR's layout.

    The documents are BEIR's whatever `split` is; the queries are its points.
    `"test"` gives BEIR's queries. Another split's points (other debates than
    the test points') are a development set over the same corpus; such a point is
    left out when its counter is not a document (its text repeats one kept before).
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    release = read_release(arguments)
    targets = [a for a in release if a.split == "test" and not a.is_point]
    kept = {a.id: a for a in targets}
    seen = {a.text for a in targets}
    for argument in release:
        if argument.id not in kept and argument.text not in seen:
            kept[argument.id] = argument
            seen.add(argument.text)
    queries = [
        a
        for a in release
        if a.split == split and a.is_point and (split == "test" or f"{a.id[:-1]}b" in kept)
    ]
    into.mkdir(parents=True, exist_ok=True)
    (into / "qrels").mkdir(exist_ok=True)
    with gzip.open(into / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
        for a in kept.values():
            handle.write(json.dumps({"_id": a.id, "title": a.title, "text": a.text}) + "\n")
    with gzip.open(into / "queries.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps({"_id": q.id, "text": q.text}) + "\n" for q in queries)
    with gzip.open(into / "qrels" / "test.tsv.gz", "wt", encoding="utf-8") as handle:
        handle.write("query-id\tcorpus-id\tscore\n")
        handle.writelines(f"{q.id}\t{q.id[:-1]}b\t1\n" for q in queries)
    return load_collection(into)
