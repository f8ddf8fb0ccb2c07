"""Every error a port's contract promises is one the library raises somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import redstring
import redstring.domain.errors as errors

SRC = Path(redstring.__file__).resolve().parent


def test_every_error_a_port_names_is_raised_by_some_adapter() -> None:
    ports = "".join(path.read_text() for path in (SRC / "ports").glob("*.py"))
    source = "".join(path.read_text() for path in SRC.rglob("*.py"))
    named = set(re.findall(r"\b([A-Z][A-Za-z]+Error)\b", ports)) - {"ValueError"}
    assert named  # the ports do promise errors: the check has something to check
    never_raised = sorted(name for name in named if f"raise {name}(" not in source)
    assert never_raised == []
    assert all(hasattr(errors, name) for name in named)
