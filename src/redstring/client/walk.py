"""Walking a folder named for reading: the files it holds, and the folders it could not read.

Hidden files and folders (a name starting with `.`) are left out, and so are
files whose suffix is not read. Links to folders are followed, wherever they
point, and what is under them takes its path from the link (`notes/sub/b.md`
for `notes/sub` linked to `/mnt/disk/sub`), as a link to a file does. Each
folder is read once, known by its device and inode: every folder reached
without a link first, then the links in path order. A link to a folder read
already is skipped and named, whether it holds the link (it would loop) or
was read at another path (it would be read twice); so is a folder that
cannot be listed. A skipped folder's id is its path ending in `/`, and the
documents indexed under it are kept (ADR 0675).
"""

from __future__ import annotations

import os
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from redstring.client.mirrored import SUFFIXES
from redstring.composition.index_documents import SkippedFile
from redstring.domain.errors import DocumentPathError


@dataclass
class Walk:
    """The files a folder's walk found (absolute paths, in path order) and the folders it
    skipped, each named by its id relative to the walk's base."""

    files: list[Path] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)


def walk(folder: Path, relative_to: Path) -> Walk:
    """The files under `folder` (absolute), ids taken relative to `relative_to`.

    Raises `DocumentPathError` when `folder` itself cannot be listed.
    """
    found = Walk()
    read: dict[tuple[int, int], Path] = {}  # (device, inode) -> where it was read
    links: deque[Path] = deque()

    def folder_id(path: Path) -> str:
        relative = shown(path.relative_to(relative_to).as_posix())
        return "" if relative == "." else relative + "/"

    def skip(path: Path, reason: str) -> None:
        found.skipped.append(SkippedFile(id=folder_id(path), reason=reason))

    def visit(top: Path) -> None:
        pending = [top]
        while pending:
            current = pending.pop()
            try:
                status = os.stat(current)
                key = (status.st_dev, status.st_ino)
                if key in read:
                    skip(current, _read_already(folder_id(read[key]), current, read[key]))
                    continue
                with os.scandir(current) as listing:
                    entries = sorted(listing, key=lambda entry: entry.name)
            except OSError as error:
                if current == folder:
                    raise DocumentPathError(
                        path=str(folder), detail=f"cannot be read ({error.strerror})"
                    ) from None
                skip(current, f"a folder that cannot be read ({error.strerror})")
                continue
            read[key] = current
            for entry in reversed(entries):  # popped last first: in name order
                _sort(entry, found, pending, links)

    visit(folder)
    while links:
        visit(links.popleft())
    found.files.sort()
    found.skipped.sort(key=lambda file: file.id)
    return found


def _sort(entry: os.DirEntry[str], found: Walk, folders: list[Path], links: deque[Path]) -> None:
    """Put `entry` where the walk takes it: a folder, a link to one, a file read, or nowhere."""
    if entry.name.startswith("."):
        return
    path = Path(entry.path)
    try:
        linked = entry.is_symlink()
        is_folder = entry.is_dir()  # a link to a folder too
    except OSError:  # cannot be looked at: a file, which reading then reports
        linked, is_folder = False, False
    if is_folder and linked:
        links.append(path)
    elif is_folder:
        folders.append(path)
    elif path.suffix.lower() in SUFFIXES:
        found.files.append(path)


def _read_already(seen_id: str, path: Path, seen: Path) -> str:
    """Why the folder at `path`, the same as the one read at `seen`, is not read again."""
    named = seen_id or "the folder indexed"
    kind = "a link to" if path.is_symlink() else "the same folder as"
    if path.is_relative_to(seen):
        return f"{kind} {named}, which holds it: not followed, it would loop"
    return f"{kind} {named}, read there: not read twice"


#: What a byte of a file name that is not UTF-8 becomes in a `str` path (surrogateescape).
_UNDECODED = re.compile("[\udc80-\udcff]")


def not_utf8(path: str) -> bool:
    """Whether `path`, as read from the file system, holds a byte that is not UTF-8."""
    return _UNDECODED.search(path) is not None


def shown(path: str) -> str:
    """`path` as text: each byte that is not UTF-8 (a lone surrogate in a `str` path, which
    no text can carry) written as its escape, `\\xe9`."""
    return os.fsencode(path).decode("utf-8", "backslashreplace") if not_utf8(path) else path
