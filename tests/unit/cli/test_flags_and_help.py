"""What the command says of its flags: help for every subcommand and flag, refusals said
of the flag (status 2 for a bad value), and defaults that agree with the Python client."""

from __future__ import annotations

import argparse
import inspect
import io
from pathlib import Path

import pytest

from redstring import Redstring, SourceDocument
from redstring.cli.arguments import build_parser
from redstring.cli.main import main
from redstring.extraction.domains import bundled_domains
from redstring.llm.openai_compatible import DEFAULT_TIMEOUT

NONE = ["--embeddings", "none"]


def _run(*argv: str, cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        status = main(list(argv), env={}, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _indexed(tmp_path: Path) -> str:
    db = str(tmp_path / "g.db")
    with Redstring(db, embeddings="none") as rs:
        rs.index([SourceDocument(id="notes/a.md", text="Ada wrote the first program.")])
    return db


def _commands() -> dict[str, argparse.ArgumentParser]:
    [sub] = [
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    ]
    return dict(sub.choices)


def _help(command: str, flag: str) -> str:
    [action] = [a for a in _commands()[command]._actions if flag in a.option_strings]
    return action.help or ""


def test_removing_an_unknown_document_names_the_argument_and_the_ids_the_tenant_holds(
    tmp_path: Path,
) -> None:
    db = _indexed(tmp_path)
    for document in ("", "a.md"):
        status, _, err = _run("remove", document, "--db", db, cwd=tmp_path)
        assert status == 1
        shown = document or "''"  # as typed; a blank one quoted
        assert err.startswith(f"redstring: error: DOCUMENT {shown}: not in this tenant")
        assert "nothing was removed" in err
        assert "each match of redstring passages QUERY names its source" in err
        assert err.endswith("this tenant holds notes/a.md.\n")
        assert "describe()" not in err
        assert "document_id" not in err


def _three(tmp_path: Path) -> str:
    db = str(tmp_path / "g.db")
    with Redstring(db, embeddings="none") as rs:
        rs.index([SourceDocument(id=name, text=f"{name} wrote.") for name in ("a", "b", "pick")])
    return db


def _held(db: str) -> list[str]:
    with Redstring(db, embeddings="none") as rs:
        return sorted(rs.describe().sources)


def test_remove_checks_every_id_first_and_removes_nothing_when_any_is_missing(
    tmp_path: Path,
) -> None:
    db = _three(tmp_path)
    status, out, err = _run("remove", "a", "missing", "b", "gone", "--db", db, cwd=tmp_path)
    assert (status, out) == (1, "")
    assert err.startswith("redstring: error: DOCUMENT missing, gone: not in this tenant")
    assert "this tenant holds a, b, pick." in err
    assert _held(db) == ["a", "b", "pick"]


def test_remove_takes_a_repeated_id_once_and_every_id_named(tmp_path: Path) -> None:
    db = _three(tmp_path)
    status, out, err = _run("remove", "pick", "a", "pick", "--db", db, cwd=tmp_path)
    assert (status, err) == (0, "")
    assert out == "removed pick (1 passage)\nremoved a (1 passage)\n"
    assert _held(db) == ["b"]


@pytest.mark.parametrize(
    "argv",
    [
        ["index", "notes", "--encoding", "bogus"],
        ["index", "notes", "--encoding", "rot13"],
        ["index", "notes", "--encoding", "base64"],
        ["index", "notes", "--encoding", "hex"],
        ["index", "notes", "--threads", "0"],
        ["passages", "x", "--embed-dimension", "-5"],
        ["passages", "x", "-k", "-1"],
        ["build", "notes", "--llm-timeout", "0"],
        ["build", "notes", "--llm-attempts", "-1"],
        ["build", "notes", "--max-failed-share", "1.5"],
        ["build", "notes", "--pair-questions", "-1"],
    ],
)
def test_a_bad_flag_value_is_a_usage_error_naming_the_flag(tmp_path: Path, argv: list[str]) -> None:
    flag, value = argv[-2], argv[-1]
    status, out, err = _run(*argv, "--db", str(tmp_path / "g.db"), *NONE, cwd=tmp_path)
    assert (status, out) == (2, "")
    assert f"usage error: argument {flag}: must be" in err
    assert repr(value) in err
    assert "=" not in err.split("must be")[0]  # never the Python argument `encoding=`
    assert not (tmp_path / "g.db").exists()


def test_every_subcommand_describes_itself_atop_its_help() -> None:
    for name, command in _commands().items():
        assert command.description, name
        assert command.description in " ".join(command.format_help().split()), name


def test_every_flag_says_what_it_does_not_only_its_variable() -> None:
    for name, command in _commands().items():
        for action in command._actions:
            if action.option_strings and action.dest != "help":
                said = (action.help or "").split("(env")[0].strip()
                assert said, f"{name} {action.option_strings}"


def test_the_help_states_defaults_repeats_and_the_domains_the_code_holds() -> None:
    assert "default: hybrid with an embedding provider, lexical without" in _help(
        "search", "--mode"
    )
    assert "repeat it" in _help("passages", "--source")
    assert "repeat it" in _help("search", "--type")
    assert f"default {DEFAULT_TIMEOUT:g}" in _help("build", "--llm-timeout")
    domains = _help("build", "--domain")
    assert all(domain in domains for domain in bundled_domains())


def test_commands_offer_only_the_options_they_use() -> None:
    options = {
        name: {flag for action in command._actions for flag in action.option_strings}
        for name, command in _commands().items()
    }
    assert "--migrate" not in options["check"]
    assert "--language" not in options["check"]
    for name in ("remove", "rekey", "undo", "rebuild", "stats", "search"):
        assert "--language" not in options[name], name
    assert "change nothing" in (_commands()["stats"].description or "")


def test_k_defaults_to_what_the_python_client_returns() -> None:
    for command, method in (("search", Redstring.search), ("passages", Redstring.passages)):
        [action] = [a for a in _commands()[command]._actions if a.dest == "k"]
        default = inspect.signature(method).parameters["k"].default
        assert action.default == default, command
        assert f"default {default}" in (action.help or "")
    assert _commands()["passages"].get_default("k") == 5


def test_stats_of_a_tenant_holding_nothing_says_it_is_empty(tmp_path: Path) -> None:
    db = _indexed(tmp_path)
    status, out, _ = _run("stats", "--db", db, "--tenant", "nobody", cwd=tmp_path)
    assert status == 0
    [empty] = [line for line in out.splitlines() if "empty" in line]
    assert empty.endswith(": empty (nothing indexed or built in it)")
    assert "  chunks         1" in out  # the default tenant, which holds the passage


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["remove", "a", "--language", "english"], "remove"),
        (["stats", "--bogus", "x"], "stats"),
        (["check", "--migrate"], "check"),
    ],
)
def test_a_flag_the_subcommand_does_not_take_points_to_its_own_help(
    tmp_path: Path, argv: list[str], command: str
) -> None:
    status, out, err = _run(*argv, "--db", str(tmp_path / "g.db"), cwd=tmp_path)
    assert (status, out) == (2, "")
    assert err.startswith(f"redstring {command}: usage error: unrecognized arguments: ")
    assert err.rstrip().endswith(f"(see redstring {command} --help)")
    assert not (tmp_path / "g.db").exists()


@pytest.mark.parametrize("blank", ["", "  "])
def test_a_blank_db_is_a_usage_error_naming_the_flag(tmp_path: Path, blank: str) -> None:
    for argv in (["remove", "a"], ["stats"], ["index", "notes", *NONE]):
        status, out, err = _run(*argv, "--db", blank, cwd=tmp_path)
        assert (status, out) == (2, ""), argv
        assert (
            f"usage error: argument --db: must be a SQLite file path or a postgresql:// URL, "
            f"got {blank!r}" in err
        )
        assert "db=" not in err


@pytest.mark.parametrize("blank", ["", "  "])
def test_a_blank_tenant_is_a_usage_error_naming_the_flag(tmp_path: Path, blank: str) -> None:
    for argv in (["stats"], ["passages", "ada", *NONE], ["mcp", *NONE]):
        status, out, err = _run(*argv, "--tenant", blank, cwd=tmp_path)
        assert (status, out) == (2, ""), argv
        assert err == (
            f"redstring {argv[0]}: usage error: argument --tenant: must be a tenant name or a "
            f"UUID, got {blank!r} (see redstring {argv[0]} --help)\n"
        )


def test_a_db_naming_a_folder_is_said_of_the_flag(tmp_path: Path) -> None:
    status, _, err = _run("stats", "--db", str(tmp_path), cwd=tmp_path)
    assert status == 1
    assert err.startswith(f"redstring: error: --db {tmp_path} is not allowed: --db must be")
    assert "db=" not in err
