"""The Python reference passages: sections of the standard library's `pydoc_data.topics`.

`pydoc_data.topics.topics` is the text `help("assert")` prints: 79 topics of
the Python Language Reference and Library Reference (CPython's `Doc/`,
PSF License Agreement), rendered as plain text with underlined headings.
A passage is one section (a heading and its text) or, inside a section, one
entry a signature starts (`str.capitalize()`, `object.__getattr__(self,
name)`, `b(reak) [...]`: a line at the margin followed by an indented
body); a section's text before its first entry is a passage of its own.
Sections that several topics repeat are kept once; passages whose text
is under `MIN_CHARS` are dropped.

The text changes between Python releases, so the passages are extracted
once (`extract`, recorded with the Python version that produced them) and
shipped in `python_passages.json` (`python_passages.py`); regenerating the
queries reads them back from there, on any Python.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import pairwise
from pydoc_data.topics import topics

#: Passages shorter than this (characters of body) say too little to answer a question.
MIN_CHARS = 150
LICENCE = (
    "Python Software Foundation License Version 2 (the CPython documentation shipped "
    "as the standard library module pydoc_data.topics)"
)
_UNDERLINE = re.compile(r"[*=\-~^]{3,}")


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """(heading, body lines) of one topic; text before the first heading is dropped."""
    lines = text.split("\n")
    found: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        underline = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and _UNDERLINE.fullmatch(underline) and len(underline) == len(line):
            found.append((line.strip(), []))
            i += 2
            continue
        if found:
            found[-1][1].append(line)
        i += 1
    return found


def _is_entry(lines: list[str], i: int) -> bool:
    """Line `i` starts a signature entry: at the margin, alone, its body indented below."""
    line = lines[i]
    return (
        bool(line)
        and not line[0].isspace()
        and (i == 0 or not lines[i - 1].strip())
        and i + 2 < len(lines)
        and not lines[i + 1].strip()
        and lines[i + 2].startswith("   ")
        and bool(lines[i + 2].strip())
        and not line.rstrip().endswith((":", "."))
        and len(line) < 110
        and ("(" in line or "." in line or line.startswith("__"))
    )


def _split_entries(title: str, body: list[str]) -> list[tuple[str, str]]:
    """The section's own text under `title`, then each entry under its signature."""
    starts = [i for i in range(len(body)) if _is_entry(body, i)]
    bounds = [0, *starts, len(body)]
    parts = []
    for n, (a, b) in enumerate(pairwise(bounds)):
        if n == 0:
            parts.append((title, "\n".join(body[a:b])))
        else:
            parts.append((body[a].strip(), "\n".join(body[a + 1 : b])))
    return parts


def _slug(title: str, topic: str) -> str:
    """`str.split` for a signature, `pdb-break` for a debugger command, else the words."""
    command = title.split(maxsplit=1)[0]
    if topic == "debugger" and re.fullmatch(r"[a-z]+(\([a-z()]+\))?", command):
        return "pdb-" + command.replace("(", "").replace(")", "")
    signature = re.match(r"(?:class |static |classmethod )?([\w.]+)\(", title)
    head = signature.group(1) if signature else title
    return re.sub(r"[^a-z0-9_.]+", "-", head.casefold()).strip("-.")


def _clean(text: str) -> str:
    """Whitespace collapsed; the borders of plain-text tables (`+----+`, `|====|`, `|`) dropped."""
    text = re.sub(r"[-=+]{3,}", " ", text)
    return " ".join(w for w in text.split() if w != "|")


def extract(source: Mapping[str, str] = topics) -> list[dict[str, str]]:
    """Every passage of `source` (topic -> text; this Python's `pydoc_data.topics`), in order."""
    seen: set[tuple[str, str]] = set()
    documents: list[dict[str, str]] = []
    ids: set[str] = set()
    for topic in sorted(source):
        for heading, body in _sections(source[topic]):
            for title, text in _split_entries(heading, body):
                key = (title, _clean(text))
                if key in seen or len(key[1]) < MIN_CHARS:
                    continue
                seen.add(key)
                base = f"python:{_slug(title, topic)}"
                doc_id = base
                n = 2
                while doc_id in ids:
                    doc_id = f"{base}-{n}"
                    n += 1
                ids.add(doc_id)
                documents.append(
                    {"id": doc_id, "title": title, "text": f"{title}. {key[1]}", "topic": topic}
                )
    return documents
