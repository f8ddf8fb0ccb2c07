"""What each subcommand does: the flags turned into one `AsyncRedstring` call, then printed.

The client owns opening the stores, the tenant, the mode and the query
guards (ADR 0160); a command reads its flags, makes the providers they
configure, calls the client and prints the answer.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, replace
from typing import TextIO

from pydantic import BaseModel

from redstring.cli.progress import ProgressBar
from redstring.cli.providers import (
    NO_EMBEDDINGS_WARNING,
    chose_embeddings,
    close_embeddings,
    embedding_provider,
    llm_provider,
    max_failed_share,
    pair_questions,
)
from redstring.cli.wording import LLM_FLAGS, in_flags
from redstring.client import answers, render
from redstring.client.client import AsyncRedstring
from redstring.client.documents import read_documents
from redstring.client.store_set import StoreOpener, StoreSet
from redstring.client.stores import open_store_set
from redstring.client.tenants import parse_tenant
from redstring.composition.build_graph import GraphBuildReport
from redstring.composition.build_policy import DEFAULT_MAX_FAILED_SHARE
from redstring.composition.index_documents import SkippedFile
from redstring.domain.errors import BuildFailedError, InvalidArgumentError, MissingExtraError
from redstring.extraction.domains import AUTO, DomainSpec
from redstring.extraction.extractor import ExtractionProgress
from redstring.ports.embedding_provider import EmbeddingProvider

#: What `build` says before it asks the model to choose the domain schema.
DOMAIN_QUESTION = (
    "redstring: asking the model which domain schema fits these documents first; "
    "--domain general (or another schema) skips the question, about a minute less "
    "on a model running on a CPU\n"
)


@dataclass(frozen=True)
class Context:
    """What a command may touch besides its arguments.

    `opener` opens the stores of `--db` (`None`: the client's own opener of
    SQLite files and PostgreSQL URLs); tests hand in-memory stores in here.
    """

    env: Mapping[str, str]
    opener: StoreOpener | None
    out: TextIO
    err: TextIO


async def run(args: argparse.Namespace, context: Context) -> int:
    """Run the subcommand `args.command`; its exit status."""
    handlers = {
        "index": _index,
        "build": _build,
        "search": _search,
        "passages": _passages,
        "stats": _stats,
        "remove": _remove,
        "mcp": _mcp,
        "rekey": _rekey,
        "undo": _undo,
        "rebuild": _rebuild,
    }
    if args.command == "check":
        return await _check(args, context)
    await handlers[args.command](args, context)
    return 0


def _client(
    args: argparse.Namespace,
    context: Context,
    embeddings: EmbeddingProvider | None,
    *,
    read_only: bool,
) -> AsyncRedstring:
    """The client of `--db`, `--tenant` and `--migrate` with the provider the flags chose."""
    return AsyncRedstring(
        args.db,
        tenant=parse_tenant(args.tenant),
        embeddings="none" if embeddings is None else embeddings,
        migrate=args.migrate,
        create=not read_only,
        opener=context.opener,
        language=args.language,
    )


def _upkeep_client(
    args: argparse.Namespace, context: Context, embeddings: EmbeddingProvider | None
) -> AsyncRedstring:
    """The client of a command that changes a database it must not make (`rekey`, ...).

    It opens the database once: `create=False` refuses a missing one
    (`DatabaseNotFoundError`, no file made; a PostgreSQL schema holding
    nothing is `DimensionRequiredError`), and the client's own opener is told
    to open an existing SQLite file to write rather than read-only. An opener
    handed in (tests) is called with `create=False` and serves as it will.
    """
    opener = context.opener or _open_existing_to_write
    return _client(args, replace(context, opener=opener), embeddings, read_only=True)


def _open_existing_to_write(
    db: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None = None
) -> AbstractAsyncContextManager[StoreSet]:
    """`open_store_set` refusing a missing database and writing an existing one (`create`
    is `False` here, as the upkeep client passes it)."""
    return open_store_set(
        db, dimension=dimension, create=create, migrate=migrate, language=language, writable=True
    )


@asynccontextmanager
async def _closing(client: AsyncRedstring) -> AsyncIterator[AsyncRedstring]:
    """Close `client` and the embedding provider the flags built for it at the end.

    Unlike `async with client`, the client opens on first use.
    """
    try:
        yield client
    finally:
        try:
            await client.close()
        finally:
            await close_embeddings(client.embeddings)


async def _index(args: argparse.Namespace, context: Context) -> None:
    embeddings = embedding_provider(args, context.env)
    client = _client(args, context, embeddings, read_only=False)
    if embeddings is None and not chose_embeddings(args, context.env):
        context.err.write(NO_EMBEDDINGS_WARNING)
    bar = ProgressBar(context.err, "indexing", unit="chunk", enabled=not args.quiet)
    async with _closing(client):
        try:
            report = await client.index(
                args.paths,
                root=args.root,
                encoding=args.encoding,
                keep_missing=args.keep_missing,
                progress=bar.update,
            )
        finally:
            bar.finish()
    _warn_skipped(report.skipped, context)
    if report.mixed_models:
        models = ", ".join(f"{answers.printable(m)}: {n}" for m, n in report.mixed_models.items())
        context.err.write(
            f"redstring: warning: this tenant's passages are now embedded by "
            f"{len(report.mixed_models)} models ({models}); a semantic search compares its "
            "query with every passage, so the other models' passages rank as noise: index "
            "every document again with the model you search with\n"
        )
    render.print_index_report(report, context.out)


def _warn_skipped(skipped: list[SkippedFile], context: Context) -> None:
    for file in skipped:
        context.err.write(
            f"redstring: warning: skipped {answers.printable(file.id)}: {file.reason}\n"
        )


async def _build(args: argparse.Namespace, context: Context) -> None:
    client = _client(args, context, embedding_provider(args, context.env), read_only=False)
    read = read_documents(args.paths, encoding=args.encoding, root=args.root)
    _warn_skipped(read.skipped, context)
    documents = read.documents
    provider = llm_provider(args, context.env)
    share = max_failed_share(args, context.env)
    pairs = pair_questions(args, context.env)
    domain: DomainSpec = AUTO if args.domain == "auto" else args.domain
    finished: set[str] = set()
    bar = ProgressBar(context.err, "building", unit="doc", enabled=not args.quiet)
    if not args.quiet:
        if args.domain == "auto":
            context.err.write(DOMAIN_QUESTION)
        bar.update(0, len(documents), "checking the model server")

    def progress(step: ExtractionProgress) -> None:
        if step.chunks_done >= step.chunks_total:
            finished.add(step.document_id)
        failed = f", {step.chunks_failed} failed" if step.chunks_failed else ""
        bar.update(
            len(finished),
            len(documents),
            f"{step.document_id}: chunk {step.chunks_done}/{step.chunks_total}{failed}",
        )

    async with provider, _closing(client):
        try:
            report = await client.build(
                documents,
                model=provider,
                domain=domain,
                max_failed_share=DEFAULT_MAX_FAILED_SHARE if share is None else share,
                progress=progress,
                pair_questions=pairs,
            )
        except BuildFailedError as failed:
            if isinstance(failed.report, GraphBuildReport):  # printed, then the error line
                _emit(_in_flags(failed.report), args, context, render.print_build_report)
            raise
        finally:
            bar.finish()
    _emit(_in_flags(report), args, context, render.print_build_report)


def _in_flags(report: GraphBuildReport) -> GraphBuildReport:
    """`report` with the failures' causes naming the flags, not the library's arguments."""
    failures = [
        failure.model_copy(update={"cause": in_flags(failure.cause, LLM_FLAGS)})
        for failure in report.failures
    ]
    return report.model_copy(update={"failures": failures})


async def _search(args: argparse.Namespace, context: Context) -> None:
    client = _client(args, context, embedding_provider(args, context.env), read_only=True)
    async with _closing(client):
        answer = await client.search(
            args.query,
            k=args.k,
            mode=args.mode,
            types=args.types,
            min_confidence=args.min_confidence,
        )
    _emit(answer, args, context, answers.print_entities)


async def _passages(args: argparse.Namespace, context: Context) -> None:
    client = _client(args, context, embedding_provider(args, context.env), read_only=True)
    async with _closing(client):
        answer = await client.passages(
            args.query,
            k=args.k,
            mode=args.mode,
            sources=args.sources,
            min_confidence=args.min_confidence,
        )
    _emit(answer, args, context, answers.print_passages)


async def _stats(args: argparse.Namespace, context: Context) -> None:
    # Counting needs no embeddings: the database opens at the dimension it records.
    client = _client(args, context, None, read_only=True)
    async with _closing(client):
        answer = await client.stats()
    _emit(answer, args, context, answers.print_stats)


async def _remove(args: argparse.Namespace, context: Context) -> None:
    """Remove every DOCUMENT named (a repeated one once), or none when any is not held."""
    wanted = list(dict.fromkeys(args.document_ids))
    client = _upkeep_client(args, context, None)
    async with _closing(client):
        held = (await client.describe()).sources
        missing = [document_id for document_id in wanted if document_id not in held]
        if missing:
            raise _not_held(missing, sorted(held))
        for document_id in wanted:
            passages = await client.remove(document_id)
            context.out.write(
                f"removed {answers.printable(document_id)} ({answers.count(passages, 'passage')})\n"
            )


#: The most of a tenant's document ids a refused `remove` lists.
_LISTED = 10


def _not_held(missing: list[str], held: list[str]) -> InvalidArgumentError:
    """The refusal of a `remove` naming documents the tenant does not hold: each of them,
    that nothing was removed, and the ids the tenant does hold."""

    def shown(document_id: str) -> str:
        plain = document_id != "" and document_id.split() == [document_id]
        return answers.printable(document_id if plain else repr(document_id))

    names = ", ".join(shown(document_id) for document_id in missing)
    if not held:
        holds = "this tenant holds no documents (check --db and --tenant)"
    else:
        more = "" if len(held) <= _LISTED else f", and {len(held) - _LISTED} more"
        holds = "this tenant holds " + ", ".join(map(shown, held[:_LISTED])) + more
    requirement = "the id of a document indexed in this tenant"
    return InvalidArgumentError(
        name="DOCUMENT",
        value=missing,
        requirement=requirement,
        message=f"DOCUMENT {names}: not in this tenant, so nothing was removed; each DOCUMENT "
        f"must be {requirement}, as each match of redstring passages QUERY names its "
        f"source; {holds}.",
    )


async def _rekey(args: argparse.Namespace, context: Context) -> None:
    client = _upkeep_client(args, context, None)
    async with _closing(client):
        report = await client.rekey(force=args.force)
    if report.rekeyed == 0:
        said = (
            "it holds no entities to re-key"
            if report.version_after is None
            else f"key version {report.version_after}"
        )
        context.out.write(f"tenant {report.tenant_id}: already current ({said})\n")
    else:
        context.out.write(
            f"tenant {report.tenant_id}: re-keyed {report.rekeyed} entities from key version "
            f"{report.version_before} to {report.version_after}\n"
        )


async def _undo(args: argparse.Namespace, context: Context) -> None:
    client = _upkeep_client(args, context, embedding_provider(args, context.env))
    async with _closing(client):
        undone = await client.undo(args.merge_event_id)
    names = ", ".join(entity.name for entity in undone.restored)
    context.out.write(
        f"undid merge {undone.merge_event_id}: {undone.survivor_restored.name} restored, "
        f"{len(undone.restored)} entities back ({names})\n"
    )


async def _rebuild(args: argparse.Namespace, context: Context) -> None:
    client = _upkeep_client(args, context, None)
    async with _closing(client):
        report = await client.rebuild()
    if args.json:
        context.out.write(report.model_dump_json(indent=2) + "\n")
        return
    context.out.write(
        f"rebuilt tenant {report.tenant_id} from its event log (to event {report.last_sequence}): "
        f"{report.entities} entities, {report.relationships} relationships, "
        f"{report.vectors} vectors\n"
    )
    if report.hint is not None:
        context.out.write(report.hint + "\n")


#: `redstring check`'s exit status when it found a damaged row (1 is an error, 2 a usage error).
DAMAGE_FOUND = 3


async def _check(args: argparse.Namespace, context: Context) -> int:
    # Read-only, and a file whose stores lag its log is read as it is, not caught up first.
    opener = context.opener or functools.partial(open_store_set, catch_up=False)
    client = _client(args, replace(context, opener=opener), None, read_only=True)
    async with _closing(client):
        report = await client.check()
    if args.json:
        context.out.write(report.model_dump_json(indent=2) + "\n")
    else:
        for row in report.damaged:
            context.out.write(f"damaged: {row}\n")
        scanned = ", ".join(report.checked) or "no store"
        found = answers.count(len(report.damaged), "damaged row")
        context.out.write(f"checked {scanned} of {report.db}: {found}\n")
        if report.unchecked:
            context.out.write(f"not checked (they cannot scan): {', '.join(report.unchecked)}\n")
        for index in report.stale:
            context.out.write(
                f"stale name index: tenant {index.tenant_id} was keyed under scheme "
                f"{index.key_version}, this version keys under {index.current}; names may be "
                f"missed until `redstring rekey --db {report.db} --tenant {index.tenant_id}`\n"
            )
        if report.damaged:
            context.out.write(
                "nothing was changed; restore the file from a backup, or index the documents "
                "again into a new path\n"
            )
    return 0 if report.ok else DAMAGE_FOUND


async def _mcp(args: argparse.Namespace, context: Context) -> None:
    embeddings = embedding_provider(args, context.env)
    if importlib.util.find_spec("mcp") is None:
        raise MissingExtraError(extra="mcp", missing="the mcp package")
    from redstring.cli.mcp_server import serve_stdio  # noqa: PLC0415 (optional extra)

    client = _client(args, context, embeddings, read_only=True)
    async with _closing(await client.open()):
        await serve_stdio(client)


def _emit[Answer: BaseModel](
    answer: Answer,
    args: argparse.Namespace,
    context: Context,
    print_human: Callable[[Answer, TextIO], None],
) -> None:
    """Write `answer` as indented JSON with `--json`, else in the human layout."""
    if args.json:
        context.out.write(answer.model_dump_json(indent=2) + "\n")
    else:
        print_human(answer, context.out)
