"""The sample documents that ship inside the package, for a first try without files of one's own."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def sample_docs() -> Path:
    """The folder of sample documents installed with redstring.

    Four computing pioneers and a company, as Markdown and text files; index
    it like any folder (`rs.index(sample_docs())`), and its documents get the
    ids `sample_docs/ada_lovelace.md` and so on.
    """
    return Path(str(files("redstring") / "sample_docs"))
