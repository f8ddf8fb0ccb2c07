"""The `redstring` command's flags: every subcommand, its help and its checks of values.

A bad flag value is refused here, as a usage error (exit status 2), by the
same checks that read a setting from the environment (`providers`); the
value is kept as the text given, so those readers take it as they take the
environment variable. A subcommand that offers neither --migrate nor
--language reads them as unset.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import NoReturn

from redstring import __version__
from redstring.cli.providers import EMBEDDING_KINDS, positive_float, positive_int
from redstring.client.client import DEFAULT_DB
from redstring.client.documents import require_encoding
from redstring.client.stores import require_db
from redstring.client.tenants import DEFAULT_TENANT, DEFAULT_TENANT_NAME, parse_tenant
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.retrieval import RetrievalMode
from redstring.domain.tokenize import Analyzer
from redstring.extraction.domains import bundled_domains
from redstring.llm.openai_compatible import DEFAULT_TIMEOUT, STRUCTURED_OUTPUTS


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


def _kept_as_text(check: Callable[[str], object]) -> Callable[[str], str]:
    """An argparse `type` that refuses what `check` refuses (a usage error, status 2) but
    keeps the text: the setting readers take a flag and its environment variable alike."""

    def checked(raw: str) -> str:
        try:
            check(raw.strip())
        except InvalidArgumentError as refused:  # the settings' own refusal
            raise argparse.ArgumentTypeError(
                f"must be {refused.requirement}, got {raw!r}"
            ) from None
        return raw

    return checked


_POSITIVE_INT = _kept_as_text(lambda raw: positive_int(raw, name="value"))
_POSITIVE_FLOAT = _kept_as_text(lambda raw: positive_float(raw, name="value"))
_WHOLE_NUMBER = _kept_as_text(_non_negative_int)
_SHARE = _kept_as_text(_share)


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
        type=_kept_as_text(require_db),
        help=f"a SQLite file path, or a postgresql:// URL (default: {DEFAULT_DB})",
    )
    db.add_argument(
        "--tenant",
        default=DEFAULT_TENANT_NAME,
        type=_kept_as_text(parse_tenant),
        help=f"a tenant UUID or name (default: {DEFAULT_TENANT_NAME!r}, id {DEFAULT_TENANT})",
    )
    migrate = _Parser(add_help=False)
    migrate.add_argument(
        "--migrate",
        action="store_true",
        help="upgrade a database written by an older redstring in place",
    )
    language = _Parser(add_help=False)
    language.add_argument(
        "--language",
        type=_language,
        help="text analysis of passages: a Snowball language (english, german, ...) or none "
        "(default: the one the database records; english for a new one); another than the "
        "one a database holding passages records is refused",
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
    embed.add_argument(
        "--embed-base-url",
        metavar="URL",
        help="the OpenAI-protocol embedding server, e.g. http://localhost:8080/v1, for "
        "--embeddings openai (env REDSTRING_EMBED_BASE_URL)",
    )
    embed.add_argument(
        "--embed-model",
        metavar="NAME",
        help="the model the embedding server serves, for --embeddings openai "
        "(env REDSTRING_EMBED_MODEL)",
    )
    embed.add_argument(
        "--embed-dimension",
        metavar="N",
        type=_POSITIVE_INT,
        help="the length of the vectors that model returns, e.g. 384, for --embeddings openai "
        "(env REDSTRING_EMBED_DIMENSION)",
    )
    embed.add_argument(
        "--threads",
        metavar="N",
        type=_POSITIVE_INT,
        help="cores the local model embeds on (env REDSTRING_THREADS; default: every core "
        "this process may use; 1 gives the same vectors)",
    )
    llm = _Parser(add_help=False)
    llm.add_argument(
        "--llm-base-url",
        metavar="URL",
        help="OpenAI-protocol server, e.g. http://localhost:11434/v1 (env REDSTRING_LLM_BASE_URL)",
    )
    llm.add_argument(
        "--llm-model",
        metavar="NAME",
        help="the chat model that server serves, e.g. llama3.1 (env REDSTRING_LLM_MODEL)",
    )
    query = _Parser(add_help=False)
    query.add_argument("query", help="what to look for, in words")
    query.add_argument(
        "--mode",
        choices=[mode.value for mode in RetrievalMode],
        help="which channels rank: semantic (the embeddings), lexical (the words) or hybrid "
        "(both, fused) (default: hybrid with an embedding provider, lexical without)",
    )
    query.add_argument("--json", action="store_true", help="print JSON for scripts")
    query.add_argument(
        "--min-confidence",
        type=_share,
        metavar="C",
        help="answer nothing when no candidate (any ranked result, returned or not) reaches "
        "this confidence, 0..1; it does not filter rows (default: none)",
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
        type=_kept_as_text(require_encoding),
        help="how the files are decoded (default utf-8); a file that does not decode is "
        "skipped with a warning",
    )
    return {
        "db": db,
        "migrate": migrate,
        "language": language,
        "key": key,
        "embed": embed,
        "llm": llm,
        "query": query,
        "quiet": quiet,
        "files": files,
    }


#: How many matches `search` and `passages` print unless `-k` says: what
#: `Redstring.search` and `Redstring.passages` return.
SEARCH_K = 10
PASSAGES_K = 5


def _command(
    sub: argparse._SubParsersAction[_Parser],
    name: str,
    parents: list[_Parser],
    summary: str,
    more: str = "",
) -> _Parser:
    """A subcommand: `summary` in the command list, and with `more` atop its --help.

    A subcommand offered neither --migrate nor --language reads them as unset.
    """
    description = summary[:1].upper() + summary[1:] + "." + (f" {more}" if more else "")
    command = sub.add_parser(name, parents=parents, help=summary, description=description)
    command.set_defaults(migrate=False, language=None)
    return command


def _k(command: _Parser, default: int) -> None:
    command.add_argument(
        "-k", type=_non_negative_int, default=default, help=f"how many (default {default})"
    )


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The flags of `argv`, or `UsageError`; a flag the subcommand does not take is said of
    the subcommand, so the refusal points to its --help (`redstring remove --help`)."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        raise UsageError(
            f"{parser.prog} {args.command}", f"unrecognized arguments: {' '.join(unknown)}"
        )
    return args


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
    opens = [p["db"], p["migrate"]]
    models = [p["embed"], p["key"]]
    index = _command(
        sub,
        "index",
        [p["files"], *opens, p["language"], *models, p["quiet"]],
        "split text and Markdown files into searchable passages",
        "A document indexed again writes only what changed.",
    )
    index.add_argument(
        "--keep-missing",
        action="store_true",
        help="keep documents whose files are no longer in a folder indexed again "
        "(default: remove them, so the index mirrors the folder)",
    )
    remove = _command(
        sub,
        "remove",
        opens,
        "take documents out of the tenant: their passages and vectors",
        "Entities a build extracted from them stay.",
    )
    remove.add_argument(
        "document_ids",
        nargs="+",
        metavar="DOCUMENT",
        help="a document id, as `passages` shows it (e.g. docs/notes.md)",
    )
    build = _command(
        sub,
        "build",
        [p["files"], *opens, p["language"], p["llm"], *models, p["quiet"]],
        "extract entities and relationships with a language model",
        "The passages are indexed too, so `passages` finds them.",
    )
    domains = ", ".join(bundled_domains())
    build.add_argument(
        "--domain",
        default="auto",
        choices=[*bundled_domains(), "auto"],  # another name is a usage error, as it is typed
        metavar="NAME",
        help=f"the schema of entity and relationship types: {domains}, or auto to let the "
        "model choose one from the documents (default auto)",
    )
    build.add_argument(
        "--llm-timeout",
        metavar="SECONDS",
        type=_POSITIVE_FLOAT,
        help="seconds per attempt of one model request "
        f"(env REDSTRING_LLM_TIMEOUT; default {DEFAULT_TIMEOUT:g})",
    )
    build.add_argument(
        "--llm-concurrency",
        metavar="N",
        type=_POSITIVE_INT,
        help="most model requests in flight (env REDSTRING_LLM_CONCURRENCY; default 4)",
    )
    build.add_argument(
        "--llm-attempts",
        metavar="N",
        type=_POSITIVE_INT,
        help="attempts per model request (env REDSTRING_LLM_ATTEMPTS; default 5)",
    )
    build.add_argument(
        "--max-tokens",
        metavar="N",
        type=_POSITIVE_INT,
        help="answer bound per request (env REDSTRING_LLM_MAX_TOKENS; default derived per chunk)",
    )
    build.add_argument(
        "--structured-output",
        choices=STRUCTURED_OUTPUTS,
        help="how to ask for JSON (env REDSTRING_STRUCTURED_OUTPUT; default auto)",
    )
    build.add_argument(
        "--max-failed-share",
        metavar="SHARE",
        type=_SHARE,
        help="fail when more than this share (0..1) of chunks fail "
        "(env REDSTRING_MAX_FAILED_SHARE; default 0.5; 1 accepts partial results)",
    )
    build.add_argument(
        "--pair-questions",
        metavar="N",
        type=_WHOLE_NUMBER,
        help="ask about up to this many pairs of a passage's entities, one question each, when "
        "its answer states no relationship: helps small models (env REDSTRING_PAIR_QUESTIONS; "
        "default 0)",
    )
    build.add_argument("--json", action="store_true", help="print the report as JSON")
    search = _command(
        sub,
        "search",
        [*opens, p["query"], *models],
        "rank entities",
        "The entities a build extracted, best first, with each channel's score.",
    )
    _k(search, SEARCH_K)
    search.add_argument(
        "--type",
        action="append",
        dest="types",
        metavar="T",
        help="keep entities of type T; repeat it to keep several types (default: every type)",
    )
    passages = _command(
        sub,
        "passages",
        [*opens, p["language"], p["query"], *models],
        "rank passages",
        "The indexed passages, best first, with each channel's score and the words matched.",
    )
    _k(passages, PASSAGES_K)
    passages.add_argument(
        "--source",
        action="append",
        dest="sources",
        metavar="ID",
        help="keep passages of the document ID; repeat it to keep several (default: every "
        "document)",
    )
    stats = _command(
        sub,
        "stats",
        [*opens, *models],
        "count what the database holds",
        "One block per tenant of the database and the one --tenant names; a tenant "
        "holding nothing is one line saying it is empty. Counting reads no model: the "
        "--embeddings flags are accepted, so one set of flags serves every command, and "
        "change nothing.",
    )
    stats.add_argument("--json", action="store_true", help="print JSON for scripts")
    rekey = _command(
        sub,
        "rekey",
        opens,
        "re-file the tenant's name index under the current key version (after --migrate)",
    )
    rekey.add_argument("--force", action="store_true", help="re-file even a current index")
    undo = _command(
        sub,
        "undo",
        [*opens, *models],
        "reverse one merge of a build (its id is printed beside the merge)",
        "The merged entities come back with their vectors, embedded again.",
    )
    undo.add_argument("merge_event_id", metavar="MERGE_ID", help="the merge's `undo:` id")
    rebuild = _command(
        sub,
        "rebuild",
        opens,
        "empty the tenant's graph and vectors and replay its event log into them",
    )
    rebuild.add_argument("--json", action="store_true", help="print the report as JSON")
    check = _command(
        sub,
        "check",
        [p["db"]],
        "read every row of the database and list each damaged one, changing nothing"
        " (exit status 3 when one is found)",
        "The database is read as it is: neither upgraded nor caught up with its log.",
    )
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    _command(
        sub,
        "mcp",
        [*opens, p["language"], *models],
        "serve the tenant to an agent over MCP (stdio): describe it, search and read it",
    )
    return parser
