"""Which document ids a folder named for indexing could have given: the ones it mirrors.

A document id records no folder: only its path relative to the folder ids
are taken from (`--root`, or the folder holding the path named). A folder
below that base records its own name as the ids' first part (`notes/a.md`
for `notes`), so every id under `notes/` is one its walk could give. A
folder that *is* the base gives ids with no name of its own (`a.md`,
`sub/b.md`), and any file id could look like one of them; such a folder
claims only the ids its walk could give as it stands now: a file directly in
it, or a file under one of its subfolders (or links to folders) still there. The walk's
rules apply too: a hidden part (a name starting with `.`) or a suffix that is
not read is never a folder's id. A document whose id no folder of a run
claims is never removed by that run (ADR 0500).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

#: The file suffixes a folder's walk reads (compared lower-case).
SUFFIXES = frozenset({".txt", ".md", ".markdown"})


@dataclass(frozen=True)
class MirroredFolder:
    """A folder named for indexing: `prefix` is its ids' first part (`notes/`), `""` for the
    base itself, whose `subfolders` (names, not hidden) bound what it claims."""

    prefix: str
    subfolders: frozenset[str] = frozenset()

    def claims(self, source_id: str) -> bool:
        """Whether this folder's walk could give the document id `source_id`."""
        if not source_id.startswith(self.prefix) or not walked(source_id[len(self.prefix) :]):
            return False
        if self.prefix:
            return True
        top, slash, _ = source_id.partition("/")
        return not slash or top in self.subfolders


def mirrored_folder(folder: Path, relative_to: Path) -> MirroredFolder:
    """The ids `folder` (absolute) gives when they are taken relative to `relative_to`."""
    relative = folder.relative_to(relative_to).as_posix()
    if relative != ".":
        return MirroredFolder(prefix=relative + "/")
    with os.scandir(folder) as entries:
        names = frozenset(
            entry.name for entry in entries if not entry.name.startswith(".") and _is_dir(entry)
        )
    return MirroredFolder(prefix="", subfolders=names)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """Whether `entry` is a folder or a link to one (the walk follows both)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def walked(source_id: str) -> bool:
    """Whether a folder's walk reads a file of this relative path: no hidden part, a read suffix."""
    path = PurePosixPath(source_id)
    return path.suffix.lower() in SUFFIXES and not any(part.startswith(".") for part in path.parts)
