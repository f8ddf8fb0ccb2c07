"""Reading text and Markdown files into `SourceDocument`s (ADR 0162).

A folder is read recursively (`walk`): hidden files and folders (a name
starting with `.`) are skipped, links to folders are followed, each folder
read once. A document's id is its path, in `/` form, relative to
`root` when one is given (every path must then lie under it), and otherwise
relative to the folder holding the path that was named: indexing `docs`
gives `docs/a.md`, `docs/sub/b.md`, from whatever working directory, so the
same files read again find the same sources. Links are not resolved into
ids (`..` collapsed): a file under a linked folder has the link's path.
Files are decoded with `encoding` (UTF-8 by default), and a leading
byte-order mark is not part of the text. A file that does not
decode, or cannot be read, is skipped and reported, and so is a pipe, socket
or device found in a folder (or a link to one), which is never opened: a
pipe would wait for a writer forever, and a device such as /dev/zero never
ends. So is a file whose name is not UTF-8: no document id can hold it.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from redstring.client.mirrored import SUFFIXES, MirroredFolder, mirrored_folder
from redstring.client.walk import not_utf8, shown, walk
from redstring.composition.index_documents import SkippedFile
from redstring.domain.document import SourceDocument
from redstring.domain.errors import DocumentPathError, InvalidArgumentError, NoDocumentsError
from redstring.domain.validation import control_character

#: What `index` and `build` take: paths (files or folders) and documents, alone or in a list.
Document = str | os.PathLike[str] | SourceDocument
Documents = Document | Iterable[Document]


@dataclass(frozen=True)
class DocumentsRead:
    """The documents read, in path order, the files and folders skipped, and the folders read.

    `folders` holds each folder named, as the ids it could give
    (`MirroredFolder.claims`): every document it claims that was neither read
    nor skipped has left it. `paths` are the paths named, as given.
    """

    documents: list[SourceDocument]
    skipped: list[SkippedFile] = field(default_factory=list)
    folders: list[MirroredFolder] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """Whether nothing was found: no document, no file skipped."""
        return not self.documents and not self.skipped


def read_documents(
    paths: Sequence[str | os.PathLike[str]],
    *,
    encoding: str = "utf-8",
    root: str | os.PathLike[str] | None = None,
    allow_empty: bool = False,
) -> DocumentsRead:
    """The documents under `paths`, each file once, and the files that could not be read.

    Raises `DocumentPathError` for a missing path, a path that is neither a
    regular file nor a folder (a device such as /dev/null, a pipe), a file
    given by name whose suffix is not read, or a path outside `root`;
    `InvalidArgumentError` for an unknown `encoding`; `NoDocumentsError` when
    nothing is found at all, unless `allow_empty` (a caller mirroring the
    folders named then removes what they held). A file that does not decode
    is skipped, not raised, and so is a pipe, socket or device a folder holds.
    """
    require_encoding(encoding)
    base = None if root is None else _root(root)
    files: dict[Path, Path] = {}  # absolute path -> the folder its id is relative to
    folders: list[MirroredFolder] = []
    skipped_folders: list[SkippedFile] = []
    for raw in paths:
        path = Path(raw)
        named = Path(os.path.abspath(path))
        relative_to = base if base is not None else named.parent
        if base is not None and not named.is_relative_to(base):
            raise DocumentPathError(path=str(raw), detail=f"not under `root` {base}")
        if path.is_dir():
            folders.append(mirrored_folder(named, relative_to))
            walked = walk(named, relative_to)
            for found in walked.files:
                files.setdefault(found, relative_to)
            skipped_folders += [file for file in walked.skipped if file not in skipped_folders]
        elif path.is_file():
            if path.suffix.lower() not in SUFFIXES:
                raise DocumentPathError(path=str(raw), detail="not a text or Markdown file")
            files.setdefault(named, relative_to)
        else:
            raise DocumentPathError(path=str(raw), detail=_not_readable(path))
    listed = [str(raw) for raw in paths]
    if not files and not skipped_folders and not allow_empty:
        raise NoDocumentsError(paths=listed)
    read = DocumentsRead(documents=[], skipped=skipped_folders, folders=folders, paths=listed)
    for path, relative_to in files.items():
        source_id = path.relative_to(relative_to).as_posix()
        try:
            read.documents.append(_read(path, source_id, encoding))
        except _Unreadable as unreadable:
            read.skipped.append(SkippedFile(id=shown(source_id), reason=str(unreadable)))
    return read


def gather_documents(
    given: Documents,
    *,
    encoding: str = "utf-8",
    root: str | os.PathLike[str] | None = None,
    allow_empty: bool = False,
) -> DocumentsRead:
    """`given` as documents: paths are read (`read_documents`), documents kept as they are.

    Raises `InvalidArgumentError` naming `documents` when `given` is neither
    a path, a document nor a collection of them (`5`, `None`), holds an item
    that is neither, or holds nothing; `allow_empty` as for `read_documents`.
    """
    items = _items(given)
    documents: list[SourceDocument] = []
    paths: list[str | os.PathLike[str]] = []
    for item in items:
        if isinstance(item, SourceDocument):
            documents.append(item)
        elif isinstance(item, str | os.PathLike):
            paths.append(item)
        else:
            raise InvalidArgumentError(
                name="documents",
                value=item,
                requirement="file or folder paths, or SourceDocument objects",
            )
    if not items:
        raise InvalidArgumentError(
            name="documents", value=given, requirement="at least one path or document"
        )
    if not paths:
        return DocumentsRead(documents=documents)
    read = read_documents(paths, encoding=encoding, root=root, allow_empty=allow_empty)
    return DocumentsRead(
        documents=documents + read.documents,
        skipped=read.skipped,
        folders=read.folders,
        paths=read.paths,
    )


def _items(given: object) -> list[object]:
    """`given` as a list of items: one path or document alone, or what a collection holds."""
    if isinstance(given, str | os.PathLike | SourceDocument):
        return [given]
    if isinstance(given, Iterable) and not isinstance(given, bytes | bytearray | Mapping):
        return list(given)
    raise InvalidArgumentError(
        name="documents",
        value=given,
        requirement="a file or folder path, a SourceDocument, or a list of them",
    )


class _Unreadable(Exception):
    pass


def require_encoding(encoding: str) -> None:
    """Refuse an `encoding` Python does not know as a text encoding: `InvalidArgumentError`
    naming `encoding`. A codec of bytes to bytes (rot13, base64, hex, zlib) is known to
    `codecs.lookup` but cannot decode a file into text, so it is refused alike."""
    try:
        text = codecs.lookup(encoding)._is_text_encoding
    except (LookupError, TypeError):
        text = False
    if not text:
        raise InvalidArgumentError(
            name="encoding",
            value=encoding,
            requirement="a text encoding Python knows, e.g. utf-8, latin-1, cp1252",
        ) from None


def _root(root: object) -> Path:
    if not isinstance(root, str | os.PathLike):
        raise InvalidArgumentError(
            name="root", value=root, requirement="a folder's path, or None for the default"
        )
    base = Path(os.path.abspath(root))
    if not base.is_dir():
        raise DocumentPathError(path=os.fspath(root), detail="`root` is not a folder")
    return base


def _not_readable(path: Path) -> str:
    """Why `path`, neither a regular file nor a folder, is not read."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "no such file or folder"
    return f"exists but is {_kind(mode)}, not a regular file or folder"


def _kind(mode: int) -> str:
    """What a file of `mode` that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a pipe or socket"


def _read(path: Path, source_id: str, encoding: str) -> SourceDocument:
    if not_utf8(source_id):
        raise _Unreadable(
            "its name is not UTF-8 text (the bytes shown as \\x..), which a document id must "
            "be; rename it"
        )
    held = control_character(source_id)
    if held is not None:
        raise _Unreadable(
            f"its path holds the control character {held!r}, which a document id may not "
            "hold; rename it"
        )
    try:
        text = _text(path, encoding)
    except UnicodeDecodeError as error:
        raise _Unreadable(
            f"not {encoding} text ({error.reason} at byte {error.start}); "
            "pass --encoding (encoding=) if it is another encoding"
        ) from None
    except OSError as error:
        raise _Unreadable(f"cannot be read ({error.strerror})") from None
    return SourceDocument(
        id=source_id, text=text, title=_title(text, path), metadata={"path": source_id}
    )


def _text(path: Path, encoding: str) -> str:
    """The text of the regular file `path` (links followed), without a leading byte-order mark.

    Anything else is refused before it is opened. The file is opened without
    waiting, and checked again once open, so a pipe put in its place between
    the two never blocks the read. Raises `_Unreadable` for what is not a
    regular file; `OSError` and `UnicodeDecodeError` as reading does.
    """
    _require_regular(path, os.stat(path).st_mode)
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        _require_regular(path, os.fstat(descriptor).st_mode)
    except BaseException:
        os.close(descriptor)
        raise
    with open(descriptor, encoding=encoding) as file:  # universal newlines, as read_text
        return file.read().removeprefix("\ufeff")  # a byte-order mark, whatever the codec


def _require_regular(path: Path, mode: int) -> None:
    if not stat.S_ISREG(mode):
        link = "a link to " if path.is_symlink() else ""
        raise _Unreadable(f"{link}{_kind(mode)}, not a regular file")


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
