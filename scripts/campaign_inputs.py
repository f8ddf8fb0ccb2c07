"""The fault campaign's bad-input sweep: the Python API, the command line, the MCP server.

Each input is tried once and reported as refused (with the error class),
accepted, a raw error (not a `RedstringError`), or a hang (no answer in time).
"""

from __future__ import annotations

import asyncio
import math
import subprocess
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from redstring import (
    ChunkRetriever,
    Entity,
    RedstringError,
    Retriever,
    SourceDocument,
    StoredChunk,
    index_documents,
    new_tenant_id,
)
from redstring.client.tenants import DEFAULT_TENANT
from redstring.composition.sqlite_stores import open_sqlite
from scripts import ROOT, campaign_mcp

TIMEOUT = 30.0

#: Verdicts that fail the campaign: a raw error, no answer in time, a wrong answer, a leak.
FAILING = ("RAW", "HANG", "WRONG", "LEAK")


def _verdict(error: BaseException | None) -> str:
    if error is None:
        return "accepted"
    if isinstance(error, TimeoutError):
        return "HANG"
    kind = "refused" if isinstance(error, RedstringError) else "RAW"
    return f"{kind} {type(error).__name__}"


async def _try(work: Callable[[], Awaitable[Any]]) -> str:
    try:
        await asyncio.wait_for(work(), TIMEOUT)
    except BaseException as error:
        return _verdict(error)
    return _verdict(None)


async def api_sweep(folder: Path) -> list[tuple[str, str]]:
    """Inputs to `retrieve`, `retrieve_chunks`, the stores and `open_sqlite`."""
    path = folder / "inputs.db"
    path.unlink(missing_ok=True)
    stores = open_sqlite(path, dimension=4)
    tenant = new_tenant_id()
    await stores.graph.upsert([Entity(tenant_id=tenant, entity_type="person", name="Ada")])
    retriever = Retriever.lexical_only(graph=stores.graph)
    passages = ChunkRetriever.lexical_only(chunks=stores.chunks)
    bad: dict[str, Callable[[], Awaitable[Any]]] = {
        "retrieve k='5'": lambda: retriever.retrieve("Ada", tenant, k="5"),  # type: ignore[arg-type]
        "retrieve k=2.5": lambda: retriever.retrieve("Ada", tenant, k=2.5),  # type: ignore[arg-type]
        "retrieve k=None": lambda: retriever.retrieve("Ada", tenant, k=None),  # type: ignore[arg-type]
        "retrieve k=True": lambda: retriever.retrieve("Ada", tenant, k=True),
        "retrieve k=-1": lambda: retriever.retrieve("Ada", tenant, k=-1),
        "retrieve query=None": lambda: retriever.retrieve(None, tenant),  # type: ignore[arg-type]
        "retrieve query=b'ada'": lambda: retriever.retrieve(b"ada", tenant),  # type: ignore[arg-type]
        "retrieve query=''": lambda: retriever.retrieve("", tenant),
        "retrieve query lone surrogate": lambda: retriever.retrieve("Ada\ud800", tenant),
        "retrieve entity_types=[None]": lambda: retriever.retrieve(
            "Ada",
            tenant,
            entity_types=[None],  # type: ignore[list-item]
        ),
        "retrieve tenant as str": lambda: retriever.retrieve("Ada", str(tenant)),  # type: ignore[arg-type]
        "retrieve_chunks k=-1": lambda: passages.retrieve_chunks("ada", tenant, k=-1),
        "upsert name lone surrogate": lambda: stores.graph.upsert(
            [Entity(tenant_id=tenant, entity_type="person", name="Bad\udc00")]
        ),
        "upsert property NaN": lambda: stores.graph.upsert(
            [Entity(tenant_id=tenant, entity_type="x", name="N", properties={"v": math.nan})]
        ),
        "index a document id with \\x1f": lambda: index_documents(
            [SourceDocument(id="notes\x1fdraft", text="Ada wrote")],
            chunks=stores.chunks,
            tenant_id=tenant,
        ),
        # Issue 27, item 7: store methods given values of another type.
        "vectors.search k='5'": lambda: stores.vectors.search([1, 0, 0, 0], tenant, k="5"),
        "vectors.search min_score='0.5'": lambda: stores.vectors.search(
            [1, 0, 0, 0], tenant, min_score="0.5"
        ),
        "graph.upsert([dict])": lambda: stores.graph.upsert(
            [{"tenant_id": tenant, "entity_type": "person", "name": "Ada"}]
        ),
        "find_by_blocking_keys('w:ada')": lambda: stores.graph.find_by_blocking_keys(
            "w:ada", tenant
        ),
        # Item 8: one outsized name.
        "upsert a 1,000,000-character name": lambda: stores.graph.upsert(
            [Entity(tenant_id=tenant, entity_type="person", name="a" * 1_000_000)]
        ),
        "open_sqlite dimension=0": lambda: _open(folder / "zero.db", 0),
        "open_sqlite dimension='4'": lambda: _open(folder / "text.db", "4"),
        "open_sqlite on a folder": lambda: _open(folder, 4),
    }
    results = [(name, _must_refuse(name, await _try(work))) for name, work in bad.items()]
    await stores.close()
    return results


#: The inputs accepted as they should be; every other one of the API sweep must be refused.
ACCEPTABLE = frozenset({"index a document id with \\x1f"})


def _must_refuse(name: str, verdict: str) -> str:
    """An input accepted that should have been refused is a wrong answer, not a pass."""
    if verdict == "accepted" and name not in ACCEPTABLE:
        return "WRONG accepted (it should be refused)"
    return verdict


async def _open(path: Path, dimension: Any) -> None:
    stores = open_sqlite(path, dimension=dimension)
    await stores.close()


def cli_sweep(folder: Path) -> list[tuple[str, str]]:
    """Bad flags and paths through `python -m redstring.cli`: exit status and a one-line error."""
    empty = folder / "empty.db"
    empty.write_bytes(b"")
    other = folder / "other.db"
    other.unlink(missing_ok=True)
    with __import__("sqlite3").connect(other) as raw:
        raw.execute("CREATE TABLE IF NOT EXISTS notes (x)")
    cases = {
        "search -k -1": ["search", "Ada", "--db", str(folder / "inputs.db"), "-k", "-1"],
        "search on an empty file": ["search", "Ada", "--db", str(empty), "--embeddings", "none"],
        "search on another application's file": [
            "search",
            "Ada",
            "--db",
            str(other),
            "--embeddings",
            "none",
        ],
        "stats on a folder": ["stats", "--db", str(folder)],
        "index /dev/null": ["index", "/dev/null", "--db", str(folder / "new.db")],
        "search --tenant ' '": [
            "search",
            "Ada",
            "--db",
            str(folder / "inputs.db"),
            "--tenant",
            " ",
        ],
        "search blank query": ["search", "  ", "--db", str(folder / "inputs.db")],
    }
    results = []
    for name, argv in cases.items():
        try:
            done = subprocess.run(
                [sys.executable, "-m", "redstring.cli", *argv],
                capture_output=True,
                text=True,
                timeout=TIMEOUT * 4,
                check=False,
                cwd=ROOT,
            )
        except subprocess.TimeoutExpired:
            results.append((name, "HANG"))
            continue
        lines = done.stderr.strip().splitlines()
        if done.returncode == 0:
            verdict = "accepted"
        elif "Traceback" in done.stderr or len(lines) != 1:
            verdict = f"RAW exit {done.returncode}: {lines[-1][:80] if lines else ''}"
        else:
            verdict = f"refused exit {done.returncode}"
        results.append((name, verdict))
    return results


async def mcp_sweep(folder: Path) -> list[tuple[str, str]]:
    """Bad tool arguments to the MCP server over stdio, as raw JSON-RPC; each call must answer."""
    db = folder / "mcp.db"
    db.unlink(missing_ok=True)
    async with open_sqlite(db, dimension=4) as stores:
        ada = Entity(tenant_id=DEFAULT_TENANT, entity_type="person", name="Ada Lovelace")
        await stores.graph.upsert([ada])
        text = "Ada Lovelace wrote notes on the engine."
        await stores.chunks.upsert_chunks(  # a passage, so an ignored argument gets an answer
            [
                StoredChunk(
                    tenant_id=DEFAULT_TENANT,
                    source_id="notes.md",
                    text=text,
                    index=0,
                    start=0,
                    end=len(text),
                )
            ]
        )
    return await campaign_mcp.mcp_sweep(db, TIMEOUT)


async def sweep(folder: Path, report: Any) -> None:
    """Run the sweeps and add one line per input, and a tally per surface."""
    from scripts.campaign_damage import damage_sweep  # noqa: PLC0415

    surfaces = {
        "Python API": await api_sweep(folder),
        "command line": cli_sweep(folder),
        "MCP server": await mcp_sweep(folder),
        "damaged files": await damage_sweep(folder),
    }
    for surface, results in surfaces.items():
        tally = Counter(verdict.split()[0] for _, verdict in results)
        report.add(f"inputs: {surface}", f"{len(results)} inputs tried: {dict(tally)}")
        for name, verdict in results:
            report.add(
                f"inputs: {surface}",
                f"{name}: {verdict}",
                failed=verdict.startswith(FAILING),
            )
            report.tally(verdict)
