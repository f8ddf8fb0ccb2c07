"""The ways in: the home page, the README and the API reference show what is tested."""

from __future__ import annotations

import importlib
import inspect
import re
import tomllib
from pathlib import Path

import yaml

from tests.unit.client.test_client import QUICK_START
from tests.unit.test_public_api import SURFACE

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
PYTHON = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def test_the_home_page_shows_the_tested_quick_start() -> None:
    [code] = PYTHON.findall((DOCS / "index.md").read_text(encoding="utf-8"))
    assert code == QUICK_START


def test_the_home_page_leads_to_getting_started_how_tos_reference_then_decisions() -> None:
    text = (DOCS / "index.md").read_text(encoding="utf-8")
    places = ["getting-started.md", "how-to/", "reference/index.md", "adr/index.md"]
    positions = [text.index(f"]({place}") for place in places]
    assert positions == sorted(positions)


def test_every_namespace_has_a_reference_page_in_the_nav() -> None:
    pages = {
        match: page.relative_to(DOCS).as_posix()
        for page in (DOCS / "reference").glob("*.md")
        for match in re.findall(r"^::: ([\w.]+)$", page.read_text(encoding="utf-8"), re.M)
    }
    assert pages.keys() == SURFACE.keys()
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    [reference] = [entry["API reference"] for entry in nav if "API reference" in entry]
    assert set(reference) == set(pages.values())


def test_the_docs_link_to_the_repository_the_package_names() -> None:
    site = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert site["repo_url"] == project["urls"]["Source"]


#: A decision record's or a backlog entry's id: what users' pages leave to the record.
RECORD_ID = re.compile(r"\bADRs? \d|adr/\d{4}|\bB\d{2,3}\b")


def test_users_pages_say_what_to_do_without_decision_or_backlog_ids() -> None:
    pages = [ROOT / "README.md", DOCS / "getting-started.md", *sorted(DOCS.glob("how-to/*.md"))]
    cited = [
        f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
        for page in pages
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1)
        if RECORD_ID.search(line)
    ]
    assert len(pages) > 10
    assert not cited, "\n".join(cited)


def _reference_docstrings() -> list[tuple[str, str]]:
    """(where, docstring) of each namespace the API reference renders, its names and their
    public methods."""
    found: list[tuple[str, str]] = []
    for namespace in SURFACE:
        module = importlib.import_module(namespace)
        found.append((namespace, inspect.getdoc(module) or ""))
        for name in SURFACE[namespace]:
            thing = getattr(module, name)
            found.append((f"{namespace}.{name}", inspect.getdoc(thing) or ""))
            if inspect.isclass(thing):
                found += [
                    (f"{namespace}.{name}.{attribute}", inspect.getdoc(member) or "")
                    for attribute, member in vars(thing).items()
                    if (attribute == "__init__" or not attribute.startswith("_"))
                    and (callable(member) or isinstance(member, property))
                ]
    return found


def test_the_api_reference_says_what_is_without_decision_or_backlog_ids() -> None:
    docstrings = _reference_docstrings()
    cited = [
        f"{where}: {line.strip()}"
        for where, text in docstrings
        for line in text.splitlines()
        if RECORD_ID.search(line)
    ]
    assert len(docstrings) > 200
    assert not cited, "\n".join(cited)
