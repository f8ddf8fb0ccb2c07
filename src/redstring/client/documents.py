"""Reading text and Markdown files into `SourceDocument`s.

A folder is read recursively; hidden files and folders (a name starting with
`.`) are skipped. A document's id is its path relative to the working
directory (absolute when outside it; `..` collapsed, links not followed), in
`/` form, so indexing the same files from the same place again finds the
same sources. Files are read as UTF-8.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from redstring.domain.document import SourceDocument
from redstring.domain.errors import DocumentPathError, NoDocumentsError

#: The file suffixes read (compared lower-case).
SUFFIXES = frozenset({".txt", ".md", ".markdown"})


def read_documents(paths: Sequence[str]) -> list[SourceDocument]:
    """The documents under `paths`, in path order, each file once.

    Raises `DocumentPathError` for a missing path, a file given by name whose
    suffix is not read, or a file that is not UTF-8; `NoDocumentsError` when
    nothing is found at all.
    """
    files: dict[Path, None] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for found in sorted(_walk(path)):
                files.setdefault(Path(os.path.abspath(found)), None)
        elif path.is_file():
            if path.suffix.lower() not in SUFFIXES:
                raise DocumentPathError(path=raw, detail="not a text or Markdown file")
            files.setdefault(Path(os.path.abspath(path)), None)
        else:
            raise DocumentPathError(path=raw, detail="no such file or folder")
    if not files:
        raise NoDocumentsError(paths=list(paths))
    return [_read(path) for path in files]


def _walk(folder: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = [name for name in dirs if not name.startswith(".")]
        for name in names:
            if not name.startswith(".") and Path(name).suffix.lower() in SUFFIXES:
                found.append(Path(root) / name)
    return found


def _read(path: Path) -> SourceDocument:
    source_id = _source_id(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise DocumentPathError(path=source_id, detail=f"not UTF-8 text ({error.reason})") from None
    except OSError as error:
        raise DocumentPathError(
            path=source_id, detail=f"cannot be read ({error.strerror})"
        ) from None
    return SourceDocument(
        id=source_id, text=text, title=_title(text, path), metadata={"path": source_id}
    )


def _source_id(path: Path) -> str:
    try:
        return path.relative_to(os.path.abspath(Path.cwd())).as_posix()
    except ValueError:
        return path.as_posix()


def _title(text: str, path: Path) -> str:
    """The first Markdown heading's text, or the file name without its suffix."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            heading = stripped.lstrip("#").strip()
            if heading:
                return heading
        elif stripped:
            break
    return path.stem
