"""Errors of the client and the command line over it: paths, settings, a closed client."""

from __future__ import annotations

from redstring.domain.errors.arguments import (
    InvalidArgumentError,
    MissingExtraError,
    NotFoundError,
)
from redstring.domain.errors.base import RedstringError


class InvalidUseError(RedstringError):
    """A call these stores or this client cannot serve as they are: closed, busy, lacking a part."""


class DatabaseNotFoundError(NotFoundError, FileNotFoundError):
    """A command that only reads was pointed at a database file that does not exist.

    So was a command line's `rekey`, `rebuild`, `remove` or `undo`, which change a
    database that exists and never make one.

    `fix` says how to name another or make this one where it was opened (the
    client's arguments from Python, its flags and commands from the command line).
    """

    def __init__(self, *, path: str, fix: str) -> None:
        self.path = path
        super().__init__(f"no database at {path}. {fix}")


class DocumentPathError(NotFoundError, FileNotFoundError):
    """A document path does not exist, or is a file of a kind the command cannot read."""

    def __init__(self, *, path: str, detail: str) -> None:
        self.path = path
        super().__init__(
            f"{path}: {detail}. Pass text (.txt) or Markdown (.md, .markdown) files, or "
            "folders holding them."
        )


class NoDocumentsError(InvalidArgumentError):
    """The paths given hold no text or Markdown file, and nothing to remove: nothing to do.

    Indexing mirrors the folders named, so a folder left empty that held
    documents is not this error: they are removed.
    """

    def __init__(self, *, paths: list[str]) -> None:
        self.paths = paths
        super().__init__(
            name="paths",
            value=paths,
            requirement="paths holding .txt, .md or .markdown files",
            message=f"no .txt, .md or .markdown file found under {', '.join(paths)}; nothing "
            "to do. Check the paths.",
        )


class ClientClosedError(InvalidUseError, RuntimeError):
    """A `Redstring` or `AsyncRedstring` was used after `close()`, or closed during a call.

    `client` names the class that was closed, so the fix names the one to open.
    """

    def __init__(self, *, method: str, client: str = "Redstring") -> None:
        self.method = method
        block = "`async with`" if client.startswith("Async") else "`with`"
        super().__init__(
            f"{method}() was called on a closed redstring client. Open a new one "
            f"(`{client}(db)`), or keep the calls inside its {block} block."
        )


class ClientLoopError(InvalidUseError, RuntimeError):
    """An `AsyncRedstring` was called in another event loop than the one its stores opened in."""

    def __init__(self, *, method: str) -> None:
        self.method = method
        super().__init__(
            f"{method}() was called in another event loop than the one this AsyncRedstring "
            "opened its stores in; they belong to that loop (and close when it ends, as at the "
            "end of `asyncio.run`). Keep every call of a client in one event loop (one "
            "`asyncio.run`, with `async with AsyncRedstring(...) as rs:` inside it), open a new "
            "client in each loop, or use the blocking `Redstring`, which keeps a loop of its own."
        )


class PandasMissingError(MissingExtraError):
    """`to_pandas()` was called where pandas is not installed."""

    def __init__(self) -> None:
        super().__init__(
            extra="pandas",
            missing="pandas",
            message="to_pandas() needs pandas, which is not installed. Install it "
            "(pip install pandas), or use to_dicts().",
        )


class MissingSettingError(InvalidArgumentError):
    """A provider was chosen without a setting it needs."""

    def __init__(self, *, what: str, flag: str, variable: str) -> None:
        self.flag = flag
        self.variable = variable
        super().__init__(
            name=flag,
            value=None,
            requirement=f"given (or the environment variable {variable} set)",
            message=f"{what} needs {flag}: pass it, or set the environment variable {variable}.",
        )


class EventLogUnavailableError(InvalidUseError):
    """A command that reads the event log (undo, rebuild) was given stores without one."""

    def __init__(self, *, backend: str, command: str) -> None:
        self.backend = backend
        self.command = command
        super().__init__(
            f"`{command}` needs the database's event log, and these {backend} stores keep "
            "none. Open the SQLite file or PostgreSQL database that `build` wrote."
        )


class ChunkStoreUnavailableError(InvalidUseError):
    """The database backend has no persistent chunk store in this version of redstring."""

    def __init__(self, *, backend: str, command: str) -> None:
        self.backend = backend
        self.command = command
        super().__init__(
            f"`redstring {command}` needs a chunk store, and this redstring has no persistent "
            f"chunk store for {backend} yet, so passages cannot be kept. Use `redstring build` "
            "and `redstring search` for entities, or a redstring version with a "
            f"{backend} chunk store."
        )


class ReentrantCallError(InvalidUseError, RuntimeError):
    """A blocking `Redstring` was called from its own loop thread (a callback of a running call).

    The running call holds that thread, so the inner call could never be
    served; it is refused instead of waiting forever.
    """

    def __init__(self, *, method: str) -> None:
        self.method = method
        super().__init__(
            f"{method}() was called from inside a callback (e.g. `progress`) of a running "
            "call of the same blocking Redstring client, which would wait forever. Keep "
            "callbacks to recording their arguments and call the client after the running "
            "call returns, or use AsyncRedstring and await the call."
        )
