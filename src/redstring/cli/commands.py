"""What each subcommand does, given parsed arguments and the stores its `--db` opens."""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TextIO

from pydantic import BaseModel

from redstring.cli.progress import ProgressLine
from redstring.cli.providers import (
    NO_EMBEDDINGS_WARNING,
    chose_embeddings,
    embedding_provider,
    llm_provider,
    max_failed_share,
)
from redstring.client import queries, render
from redstring.client.client import AsyncRedstring
from redstring.client.documents import read_documents
from redstring.client.store_set import StoreOpener
from redstring.client.stores import open_store_set
from redstring.client.tenants import parse_tenant
from redstring.composition.build_graph import GraphBuildReport, build_graph
from redstring.composition.build_policy import DEFAULT_MAX_FAILED_SHARE, preflight
from redstring.composition.index_documents import index_documents
from redstring.domain.document import SourceDocument
from redstring.domain.errors import BuildFailedError, ChunkStoreUnavailableError, MissingExtraError
from redstring.domain.retrieval import require_query
from redstring.extraction.domains import AUTO, DomainSpec
from redstring.extraction.extractor import ExtractionProgress
from redstring.llm.openai_compatible import OpenAICompatibleLlmProvider
from redstring.ports.embedding_provider import EmbeddingProvider


@dataclass(frozen=True)
class Context:
    """What a command may touch besides its arguments."""

    env: Mapping[str, str]
    opener: StoreOpener
    out: TextIO
    err: TextIO


def default_opener() -> StoreOpener:
    """The opener of SQLite files and PostgreSQL URLs."""
    return open_store_set


def _dimension(embeddings: EmbeddingProvider | None) -> int | None:
    """The vector dimension to open the stores with: the provider's, or the recorded one."""
    return None if embeddings is None else embeddings.dimension


async def run(args: argparse.Namespace, context: Context) -> int:
    """Run the subcommand `args.command`; its exit status."""
    handlers = {
        "index": _index,
        "build": _build,
        "search": _search,
        "passages": _passages,
        "stats": _stats,
        "mcp": _mcp,
    }
    await handlers[args.command](args, context)
    return 0


async def _index(args: argparse.Namespace, context: Context) -> None:
    tenant = parse_tenant(args.tenant)
    documents = read_documents(args.paths)
    embeddings = embedding_provider(args, context.env)
    async with context.opener(
        args.db, dimension=_dimension(embeddings), create=True, migrate=args.migrate
    ) as stores:
        if stores.chunks is None:
            raise ChunkStoreUnavailableError(backend=stores.backend, command="index")
        if embeddings is None and not chose_embeddings(args, context.env):
            context.err.write(NO_EMBEDDINGS_WARNING)
        line = ProgressLine(context.err, "indexing", enabled=not args.quiet)
        try:
            report = await index_documents(
                documents,
                chunks=stores.chunks,
                tenant_id=tenant,
                embeddings=embeddings,
                progress=line.update,
            )
        finally:
            line.finish()
    render.print_index_report(report, context.out)


async def _build(args: argparse.Namespace, context: Context) -> None:
    parse_tenant(args.tenant)
    documents = read_documents(args.paths)
    provider = llm_provider(args, context.env)
    share = max_failed_share(args, context.env)
    embeddings = embedding_provider(args, context.env)
    async with provider:
        await preflight(provider)  # before the database is created
        report = await _build_with(
            args,
            context,
            documents=documents,
            provider=provider,
            embeddings=embeddings,
            share=DEFAULT_MAX_FAILED_SHARE if share is None else share,
        )
    _emit(report, args, context, render.print_build_report)


async def _build_with(
    args: argparse.Namespace,
    context: Context,
    *,
    documents: list[SourceDocument],
    provider: OpenAICompatibleLlmProvider,
    embeddings: EmbeddingProvider | None,
    share: float,
) -> GraphBuildReport:
    tenant = parse_tenant(args.tenant)
    domain: DomainSpec = AUTO if args.domain == "auto" else args.domain
    started: dict[str, int] = {}

    def progress(step: ExtractionProgress) -> None:
        number = started.setdefault(step.document_id, len(started) + 1)
        finished = number if step.chunks_done >= step.chunks_total else number - 1
        failed = f", {step.chunks_failed} failed" if step.chunks_failed else ""
        line.update(
            finished,
            len(documents),
            f"{step.document_id}: chunk {step.chunks_done}/{step.chunks_total}{failed}",
        )

    line = ProgressLine(context.err, "building", enabled=not args.quiet)
    async with context.opener(
        args.db, dimension=_dimension(embeddings), create=True, migrate=args.migrate
    ) as stores:
        try:
            report = await build_graph(
                documents,
                provider=provider,
                graph=stores.graph,
                tenant_id=tenant,
                embeddings=embeddings,
                vectors=stores.vectors if embeddings is not None else None,
                chunks=stores.chunks,
                log=stores.events,
                domain=domain,
                progress=progress,
                concurrency=provider.max_concurrency,
                max_failed_share=share,
            )
        except BuildFailedError as failed:
            if isinstance(failed.report, GraphBuildReport):  # printed, then the error line
                _emit(failed.report, args, context, render.print_build_report)
            raise
        finally:
            line.finish()
    return report


async def _search(args: argparse.Namespace, context: Context) -> None:
    tenant = parse_tenant(args.tenant)
    require_query(args.query)
    embeddings = embedding_provider(args, context.env)
    async with context.opener(
        args.db, dimension=_dimension(embeddings), create=False, migrate=args.migrate
    ) as stores:
        answer = await queries.search_entities(
            stores,
            embeddings,
            tenant,
            args.query,
            k=args.k,
            mode=args.mode,
            entity_types=args.types,
        )
    _emit(answer, args, context, render.print_entities)


async def _passages(args: argparse.Namespace, context: Context) -> None:
    tenant = parse_tenant(args.tenant)
    require_query(args.query)
    embeddings = embedding_provider(args, context.env)
    async with context.opener(
        args.db, dimension=_dimension(embeddings), create=False, migrate=args.migrate
    ) as stores:
        answer = await queries.search_passages(
            stores,
            embeddings,
            tenant,
            args.query,
            k=args.k,
            mode=args.mode,
            source_ids=args.sources,
        )
    _emit(answer, args, context, render.print_passages)


async def _stats(args: argparse.Namespace, context: Context) -> None:
    tenant = parse_tenant(args.tenant)
    # Counting needs no embeddings: the database opens at the dimension it records.
    async with context.opener(
        args.db, dimension=None, create=False, migrate=args.migrate
    ) as stores:
        answer = await queries.stats(stores, tenant)
    _emit(answer, args, context, render.print_stats)


async def _mcp(args: argparse.Namespace, context: Context) -> None:
    tenant = parse_tenant(args.tenant)
    embeddings = embedding_provider(args, context.env)
    if importlib.util.find_spec("mcp") is None:
        raise MissingExtraError(extra="mcp", missing="the mcp package")
    from redstring.cli.mcp_server import serve_stdio  # noqa: PLC0415 (optional extra)

    client = AsyncRedstring(
        args.db,
        tenant=tenant,
        embeddings="none" if embeddings is None else embeddings,
        migrate=args.migrate,
        create=False,
        opener=context.opener,
    )
    async with client:
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
