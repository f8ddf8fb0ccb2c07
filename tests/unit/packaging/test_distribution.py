"""What a release ships: the user's README part as the description, and only what a user needs."""

from __future__ import annotations

import re
import tarfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

from tests.unit.client.test_client import QUICK_START
from tests.unit.packaging.conftest import ROOT, Built

README = ROOT / "README.md"
#: The one command that runs the suite, under coverage: the README shows it and CI runs it.
TEST_COMMAND = "uv run pytest --cov -n auto"
MARKER = "<!-- The user part ends here"
REPOSITORY = "https://github.com/redstring-project/redstring/blob/main/"


def user_part() -> str:
    text = README.read_text(encoding="utf-8")
    assert MARKER in text
    return text.split(MARKER, 1)[0]


def with_absolute_links(markdown: str) -> str:
    return re.sub(r"\]\((?!https?://|#)([^)]+)\)", rf"]({REPOSITORY}\1)", markdown)


def wheel_metadata(built: Built) -> str:
    with zipfile.ZipFile(built.wheel) as wheel:
        [name] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
        return wheel.read(name).decode()


def sdist_metadata(built: Built) -> str:
    with tarfile.open(built.sdist) as sdist:
        [member] = [
            m for m in sdist.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")
        ]
        extracted = sdist.extractfile(member)
        assert extracted is not None
        return extracted.read().decode()


def test_the_readme_puts_the_user_first_and_keeps_the_contributor_commands() -> None:
    user = user_part()
    contributor = README.read_text(encoding="utf-8").split(MARKER, 1)[1]
    headings = re.findall(r"^## (.+)$", user, flags=re.MULTILINE)
    assert headings[:3] == ["Install", "Quick start", "Command line"]
    assert {"Quality", "Speed"} <= set(headings)
    [python] = re.findall(r"^```python\n(.*?)^```", user, flags=re.MULTILINE | re.DOTALL)
    assert python == QUICK_START
    assert "uv run pytest" not in user
    for command in (TEST_COMMAND, "uv run python examples/end_to_end.py"):
        assert f"```bash\n{command}\n```" in contributor


def test_the_readme_user_part_names_no_decision_record_or_backlog_id() -> None:
    found = re.findall(r"\bADRs? \d+|\bB\d{2,3}\b|\bBACKLOG\b|\bissue \d+", user_part())
    assert found == []


def test_ci_runs_the_readmes_test_command_once() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci.count(TEST_COMMAND) == 1
    assert not [line for line in ci if "pytest" in line and line != TEST_COMMAND]


def test_both_archives_describe_the_package_with_the_readme_user_part(built: Built) -> None:
    for raw in (wheel_metadata(built), sdist_metadata(built)):
        metadata = Parser().parsestr(raw)
        assert metadata["Description-Content-Type"] == "text/markdown"
        description = metadata.get_payload()
        assert description.strip() == with_absolute_links(user_part()).strip()
        assert "](docs/" not in description  # every link works from PyPI
        assert "Contributing" not in description


def test_the_metadata_states_version_licence_and_where_to_find_the_project(built: Built) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    metadata = Parser().parsestr(wheel_metadata(built))
    assert metadata["Version"] == project["version"]
    assert metadata["License-Expression"] == "MIT"
    assert metadata["License-File"] == "LICENSE"
    assert metadata["Requires-Python"] == ">=3.12"
    urls = dict(url.split(", ", 1) for url in metadata.get_all("Project-URL") or [])
    assert {"Homepage", "Documentation", "Source", "Issues"} <= urls.keys()
    assert "Typing :: Typed" in (metadata.get_all("Classifier") or [])
    assert metadata["Author"] or metadata["Author-email"]
    assert {"knowledge-graph", "hybrid-search"} <= set(metadata["Keywords"].split(","))
    assert set(metadata.get_all("Provides-Extra") or []) == {
        "local",
        "multilingual",
        "openai",
        "postgres",
        "mcp",
        "ann",
    }


def test_the_source_archive_holds_what_a_user_needs_and_nothing_else(built: Built) -> None:
    with tarfile.open(built.sdist) as tar:
        names = tar.getnames()
    top = {Path(name).parts[1] for name in names if len(Path(name).parts) > 1}
    user_files = {"src", "examples", "LICENSE", "README.md", "pyproject.toml"}
    assert top == user_files | {"PKG-INFO", ".gitignore"}  # hatchling adds these two
    assert not [name for name in names if name.endswith((".db", ".pyc")) or "__pycache__" in name]


def test_the_wheel_holds_the_package_and_its_metadata_only(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as wheel:
        tops = {name.split("/", 1)[0] for name in wheel.namelist()}
        names = wheel.namelist()
    assert tops == {
        "redstring",
        f"{built.wheel.name.split('-')[0]}-{built.wheel.name.split('-')[1]}.dist-info",
    }
    assert "redstring/py.typed" in names
    assert not [name for name in names if name.endswith((".db", ".pyc"))]
