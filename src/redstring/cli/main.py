"""The `redstring` command: dispatch, and one error line per failure (flags: `arguments`).

`main(argv)` returns the exit status: 0 on success, 1 when a command fails
(a `RedstringError` or a bad value, printed as one `redstring: error: ...`
line), 2 for bad flags (one `redstring: usage error: ...` line), and
`READER_GONE` (141), silently, when whoever read the output went away
(`redstring passages ... | head -1`). No
traceback reaches the user unless `--traceback` is given. The library's log
(which answer format a server takes, answers cut off, queueing) goes to
stderr as `redstring: INFO: ...` lines, unless `--quiet`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from redstring.cli import commands
from redstring.cli.arguments import UsageError, parse
from redstring.cli.providers import llm_model_name
from redstring.cli.wording import flags_for, in_flags, named_by_flag
from redstring.client.errors import (
    EMBEDDING_MODEL_FLAGS,
    EMBEDDINGS_FLAGS,
    ENTITY_MODEL_FLAGS,
    MODEL_DIMENSION_FLAGS,
    database_flags,
)
from redstring.client.store_set import StoreOpener
from redstring.domain.errors import (
    DatabaseBusyError,
    DatabaseNotFoundError,
    DimensionMismatchError,
    EmbeddingModelMismatchError,
    ModelDimensionMismatchError,
    ModeNeedsEmbeddingsError,
    RedstringError,
    SchemaMigrationRequiredError,
)

#: The exit status when the output's reader went away (a closed pipe): 128 + SIGPIPE, what
#: a shell reports for a command the signal ended, since Python ignores the signal.
READER_GONE = 141

#: What a command line can do about another writer holding the file (no flag sets the wait).
BUSY_FIX = "Run the command again once the other command writing to it has ended."


def main(
    argv: Sequence[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    opener: StoreOpener | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run one `redstring` command and return its exit status."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    try:
        try:
            return _main(argv, env=env, opener=opener, out=out, err=err)
        finally:
            out.flush()  # an answer that fits the pipe's buffer meets a gone reader here
    except BrokenPipeError:
        _silence(out)
        return READER_GONE


def _silence(out: TextIO) -> None:
    """Point `out`'s descriptor, when it is this process's stdout, at the null device.

    What is still buffered is flushed again at exit, which would fail on the
    closed pipe and print Python's own complaint (the recipe of the `signal`
    module's documentation on SIGPIPE).
    """
    if out is not sys.stdout:
        return
    try:
        descriptor = out.fileno()
    except (OSError, ValueError):  # no descriptor: nothing flushes it at exit
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)


def _main(
    argv: Sequence[str] | None,
    *,
    env: Mapping[str, str] | None,
    opener: StoreOpener | None,
    out: TextIO,
    err: TextIO,
) -> int:
    try:
        args = parse(argv)
    except UsageError as error:
        err.write(f"{error.prog}: usage error: {error} (see {error.prog} --help)\n")
        return 2
    context = commands.Context(
        env=os.environ if env is None else env,
        opener=opener,
        out=out,
        err=err,
    )
    logger = logging.getLogger("redstring")
    level = logger.level
    handler = _log_to(logger, err, quiet=bool(getattr(args, "quiet", False)))
    try:
        return asyncio.run(commands.run(args, context))
    except KeyboardInterrupt:
        err.write("redstring: interrupted\n")
        return 130
    except BrokenPipeError:  # the reader went away: `main` ends quietly, not "unexpected"
        raise
    except (RedstringError, ValueError) as error:
        if args.traceback:
            raise
        flags = flags_for(args.command, error, llm_model_name(args, context.env))
        err.write(f"redstring: error: {in_flags(_one_line(named_by_flag(error, flags)), flags)}\n")
        return 1
    except Exception as error:
        if args.traceback:
            raise
        err.write(
            f"redstring: unexpected {type(error).__name__}: {_one_line(error)} "
            "(run again with --traceback and report it)\n"
        )
        return 1
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _log_to(logger: logging.Logger, err: TextIO, *, quiet: bool) -> logging.Handler:
    """Show the library's log on `err`: from INFO, or only errors when `quiet`."""
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("redstring: %(levelname)s: %(message)s"))
    logger.setLevel(logging.ERROR if quiet else logging.INFO)
    logger.addHandler(handler)
    return handler


def _one_line(error: BaseException) -> str:
    if isinstance(error, ModeNeedsEmbeddingsError):  # the client names its argument, not flags
        error = ModeNeedsEmbeddingsError(mode=error.mode, fix=EMBEDDINGS_FLAGS)
    elif isinstance(error, ModelDimensionMismatchError):
        error = ModelDimensionMismatchError(
            stored=error.expected, model=error.actual, fix=MODEL_DIMENSION_FLAGS
        )
    elif isinstance(error, EmbeddingModelMismatchError):
        fix = EMBEDDING_MODEL_FLAGS if error.items == "passages" else ENTITY_MODEL_FLAGS
        error = EmbeddingModelMismatchError(
            stored=error.stored, model=error.model, fix=fix, items=error.items
        )
    elif isinstance(error, DatabaseNotFoundError):
        error = DatabaseNotFoundError(path=error.path, fix=database_flags(error.path))
    elif isinstance(error, DatabaseBusyError):  # `open_sqlite` is no command's
        error = DatabaseBusyError(store=error.store, cause=error.cause, fix=BUSY_FIX)
    text = " ".join(str(error).split())
    if isinstance(error, SchemaMigrationRequiredError):
        text += " From the command line: back the database up, then add --migrate."
    elif isinstance(error, DimensionMismatchError) and not isinstance(
        error, ModelDimensionMismatchError
    ):
        text += (
            " From the command line: pass the same --embeddings settings the database was "
            "written with, or --embeddings none for lexical search only."
        )
    return text or type(error).__name__
