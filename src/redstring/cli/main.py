"""The `redstring` command: argument parsing, dispatch, and one error line per failure.

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

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import NoReturn, TextIO

from redstring import __version__
from redstring.cli import commands
from redstring.cli.providers import EMBEDDING_KINDS, llm_model_name
from redstring.cli.wording import flags_for, in_flags
from redstring.client.client import DEFAULT_DB
from redstring.client.errors import (
    EMBEDDING_MODEL_FLAGS,
    EMBEDDINGS_FLAGS,
    MODEL_DIMENSION_FLAGS,
    database_flags,
)
from redstring.client.store_set import StoreOpener
from redstring.client.tenants import DEFAULT_TENANT, DEFAULT_TENANT_NAME
from redstring.domain.errors import (
    DatabaseNotFoundError,
    DimensionMismatchError,
    EmbeddingModelMismatchError,
    InvalidArgumentError,
    ModelDimensionMismatchError,
    ModeNeedsEmbeddingsError,
    RedstringError,
    SchemaMigrationRequiredError,
)
from redstring.domain.retrieval import RetrievalMode
from redstring.domain.tokenize import Analyzer
from redstring.llm.openai_compatible import STRUCTURED_OUTPUTS

#: The exit status when the output's reader went away (a closed pipe): 128 + SIGPIPE, what
#: a shell reports for a command the signal ended, since Python ignores the signal.
READER_GONE = 141


class UsageError(Exception):
    """Bad flags; carries argparse's message."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, message)


def _non_negative_int(raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {raw!r}")
    return value


def _share(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {raw!r}")
    return value


def _language(raw: str) -> str:
    try:
        return Analyzer(raw).language
    except InvalidArgumentError as refused:
        raise argparse.ArgumentTypeError(f"must be {refused.requirement}, got {raw!r}") from None


def _parents() -> dict[str, _Parser]:
    db = _Parser(add_help=False)
    db.add_argument(
        "--db",
        default=DEFAULT_DB,
        help=f"a SQLite file path, or a postgresql:// URL (default: {DEFAULT_DB})",
    )
    db.add_argument(
        "--tenant",
        default=DEFAULT_TENANT_NAME,
        help=f"a tenant UUID or name (default: {DEFAULT_TENANT_NAME!r}, id {DEFAULT_TENANT})",
    )
    db.add_argument(
        "--migrate",
        action="store_true",
        help="upgrade a database written by an older redstring in place",
    )
    db.add_argument(
        "--language",
        type=_language,
        help="text analysis of passages: a Snowball language (english, german, ...) or none "
        "(default: the one the database records; english for a new one)",
    )
    key = _Parser(add_help=False)
    key.add_argument("--api-key", help="model server key (env REDSTRING_API_KEY or OPENAI_API_KEY)")
    embed = _Parser(add_help=False)
    embed.add_argument(
        "--embeddings",
        choices=EMBEDDING_KINDS,
        help="embedding provider (env REDSTRING_EMBEDDINGS; default local when the `local` "
        "extra is installed, else none; multilingual needs the `multilingual` extra)",
    )
    embed.add_argument("--embed-base-url", help="env REDSTRING_EMBED_BASE_URL")
    embed.add_argument("--embed-model", help="env REDSTRING_EMBED_MODEL")
    embed.add_argument("--embed-dimension", help="env REDSTRING_EMBED_DIMENSION")
    embed.add_argument(
        "--threads",
        help="cores the local model embeds on (env REDSTRING_THREADS; default: every core "
        "this process may use; 1 gives the same vectors)",
    )
    llm = _Parser(add_help=False)
    llm.add_argument(
        "--llm-base-url",
        help="OpenAI-protocol server, e.g. http://localhost:11434/v1 (env REDSTRING_LLM_BASE_URL)",
    )
    llm.add_argument("--llm-model", help="env REDSTRING_LLM_MODEL")
    query = _Parser(add_help=False)
    query.add_argument("query", help="what to look for, in words")
    query.add_argument("--mode", choices=[mode.value for mode in RetrievalMode])
    query.add_argument("-k", type=_non_negative_int, default=10, help="how many (default 10)")
    query.add_argument("--json", action="store_true", help="print JSON for scripts")
    query.add_argument(
        "--min-confidence",
        type=_share,
        metavar="C",
        help="answer nothing rather than matches below this confidence, 0..1 (default: none)",
    )
    quiet = _Parser(add_help=False)
    quiet.add_argument("--quiet", action="store_true", help="no progress bar")
    files = _Parser(add_help=False)
    files.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    files.add_argument(
        "--root",
        help="document ids are paths relative to this folder (default: the folder holding "
        "each PATH, so ids do not depend on the working directory)",
    )
    files.add_argument(
        "--encoding",
        default="utf-8",
        help="how the files are decoded (default utf-8); a file that does not decode is "
        "skipped with a warning",
    )
    return {
        "db": db,
        "key": key,
        "embed": embed,
        "llm": llm,
        "query": query,
        "quiet": quiet,
        "files": files,
    }


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand and flag."""
    parser = _Parser(
        prog="redstring",
        description="Index documents, build a knowledge graph, and search it.",
    )
    parser.add_argument(
        "--traceback", action="store_true", help="show the full traceback of an error"
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = _parents()
    index = sub.add_parser(
        "index",
        parents=[p["files"], p["db"], p["embed"], p["key"], p["quiet"]],
        help="split text and Markdown files into searchable passages",
    )
    index.add_argument(
        "--keep-missing",
        action="store_true",
        help="keep documents whose files are no longer in a folder indexed again "
        "(default: remove them, so the index mirrors the folder)",
    )
    remove = sub.add_parser(
        "remove",
        parents=[p["db"]],
        help="take documents out of the tenant: their passages and vectors",
    )
    remove.add_argument(
        "document_ids",
        nargs="+",
        metavar="DOCUMENT",
        help="a document id, as `passages` shows it (e.g. docs/notes.md)",
    )
    build = sub.add_parser(
        "build",
        parents=[p["files"], p["db"], p["llm"], p["embed"], p["key"], p["quiet"]],
        help="extract entities and relationships with a language model",
    )
    build.add_argument("--domain", default="auto", help="domain schema name, or auto (default)")
    build.add_argument(
        "--llm-timeout", help="seconds per attempt of one model request (env REDSTRING_LLM_TIMEOUT)"
    )
    build.add_argument(
        "--llm-concurrency",
        help="most model requests in flight (env REDSTRING_LLM_CONCURRENCY; default 4)",
    )
    build.add_argument(
        "--llm-attempts", help="attempts per model request (env REDSTRING_LLM_ATTEMPTS; default 5)"
    )
    build.add_argument(
        "--max-tokens",
        help="answer bound per request (env REDSTRING_LLM_MAX_TOKENS; default derived per chunk)",
    )
    build.add_argument(
        "--structured-output",
        choices=STRUCTURED_OUTPUTS,
        help="how to ask for JSON (env REDSTRING_STRUCTURED_OUTPUT; default auto)",
    )
    build.add_argument(
        "--max-failed-share",
        help="fail when more than this share (0..1) of chunks fail "
        "(env REDSTRING_MAX_FAILED_SHARE; default 0.5; 1 accepts partial results)",
    )
    build.add_argument(
        "--pair-questions",
        help="ask about up to this many pairs of a passage's entities, one question each, when "
        "its answer states no relationship: helps small models (env REDSTRING_PAIR_QUESTIONS; "
        "default 0)",
    )
    build.add_argument("--json", action="store_true", help="print the report as JSON")
    search = sub.add_parser(
        "search", parents=[p["db"], p["query"], p["embed"], p["key"]], help="rank entities"
    )
    search.add_argument(
        "--type", action="append", dest="types", metavar="T", help="keep entities of type T"
    )
    passages = sub.add_parser(
        "passages", parents=[p["db"], p["query"], p["embed"], p["key"]], help="rank passages"
    )
    passages.add_argument(
        "--source", action="append", dest="sources", metavar="ID", help="keep passages of ID"
    )
    stats = sub.add_parser(
        "stats",
        parents=[p["db"], p["embed"], p["key"]],
        help="count what the database holds",
    )
    stats.add_argument("--json", action="store_true", help="print JSON for scripts")
    rekey = sub.add_parser(
        "rekey",
        parents=[p["db"]],
        help="re-file the tenant's name index under the current key version (after --migrate)",
    )
    rekey.add_argument("--force", action="store_true", help="re-file even a current index")
    undo = sub.add_parser(
        "undo",
        parents=[p["db"], p["embed"], p["key"]],
        help="reverse one merge of a build (its id is printed beside the merge)",
    )
    undo.add_argument("merge_event_id", metavar="MERGE_ID", help="the merge's `undo:` id")
    rebuild = sub.add_parser(
        "rebuild",
        parents=[p["db"]],
        help="empty the tenant's graph and vectors and replay its event log into them",
    )
    rebuild.add_argument("--json", action="store_true", help="print the report as JSON")
    check = sub.add_parser(
        "check",
        parents=[p["db"]],
        help="read every row of the database and list each damaged one, changing nothing"
        " (exit status 3 when one is found)",
    )
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    sub.add_parser(
        "mcp",
        parents=[p["db"], p["embed"], p["key"]],
        help="serve the tenant to an agent over MCP (stdio): describe it, search and read it",
    )
    return parser


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
        args = build_parser().parse_args(argv)
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
        err.write(f"redstring: error: {in_flags(_one_line(error), flags)}\n")
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
        error = EmbeddingModelMismatchError(
            stored=error.stored, model=error.model, fix=EMBEDDING_MODEL_FLAGS
        )
    elif isinstance(error, DatabaseNotFoundError):
        error = DatabaseNotFoundError(path=error.path, fix=database_flags(error.path))
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
