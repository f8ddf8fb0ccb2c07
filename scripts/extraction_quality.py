"""How well a model extracts: build the gold documents, compare the graph with the gold set.

    uv run python -m scripts.extraction_quality --base-url http://localhost:8000/v1 --model M

runs `build_graph` over every document of `tests/data/extraction/gold.json`
(the sample documents and a few more) against any OpenAI-protocol server,
into in-memory stores, and prints:

- entities: precision (graph entities naming a gold entity, by name or
  alias, after `normalize_name`) and recall (gold entities some graph entity
  names);
- relationships: precision and recall over unordered pairs of gold
  entities (direction and type are not scored: models disagree on both
  more than on whether two things are related);
- duplicates left unmerged: gold entities named by more than one graph
  entity, counted once per extra entity;
- failed chunks by cause, and the answer format the server took.

Partial results are scored (a build with failed chunks is not an error
here). `score_graph` is pure and shared with the floor test in
`tests/quality/test_extraction_floor.py`, which runs it against the scripted
sample model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from redstring import Entity, Relationship, SourceDocument, build_graph
from redstring.client.documents import read_documents
from redstring.client.tenants import DEFAULT_TENANT
from redstring.domain.normalization import normalize_name
from redstring.ports import LlmProvider
from redstring.stores import InMemoryGraphStore
from scripts import ROOT

GOLD = ROOT / "tests" / "data" / "extraction" / "gold.json"


@dataclass
class GoldEntity:
    """One thing a careful reader names, with every name the documents give it."""

    key: str
    names: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Gold:
    """The gold set: documents (paths from the repository root), entities and related pairs."""

    domain: str
    paths: list[str]
    entities: list[GoldEntity]
    pairs: set[frozenset[str]]


@dataclass(frozen=True)
class Scores:
    """What `score_graph` measured."""

    entity_precision: float
    entity_recall: float
    relationship_precision: float
    relationship_recall: float
    duplicates_unmerged: int
    graph_entities: int
    gold_entities: int
    graph_relationships: int
    gold_relationships: int


def load_gold(path: Path = GOLD, *, documents: int | None = None) -> Gold:
    """The gold set at `path` (its first `documents` only, when given); entities named
    alike in several documents are one."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["documents"] = raw["documents"][:documents]
    by_key: dict[str, GoldEntity] = {}
    pairs: set[frozenset[str]] = set()
    for document in raw["documents"]:
        for entity in document["entities"]:
            key = normalize_name(entity["name"])
            gold = by_key.setdefault(key, GoldEntity(key=key))
            gold.names.update(normalize_name(name) for name in [entity["name"], *entity["aliases"]])
        for relationship in document["relationships"]:
            ends = frozenset(normalize_name(relationship[end]) for end in ("source", "target"))
            pairs.add(ends)
    return Gold(
        domain=raw["domain"],
        paths=[document["path"] for document in raw["documents"]],
        entities=list(by_key.values()),
        pairs=pairs,
    )


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def score_graph(gold: Gold, entities: list[Entity], relationships: list[Relationship]) -> Scores:
    """Precision, recall and unmerged duplicates of a built graph against `gold`."""
    gold_of: dict[str, str] = {
        name: entity.key for entity in gold.entities for name in entity.names
    }
    matched: dict[Any, str] = {}
    named_by: dict[str, int] = {}
    for entity in entities:
        names = [normalize_name(name) for name in [entity.name, *entity.aliases]]
        keys = [gold_of[name] for name in names if name in gold_of]
        if keys:
            matched[entity.id] = keys[0]
            named_by[keys[0]] = named_by.get(keys[0], 0) + 1
    found_pairs: set[frozenset[str]] = set()
    right = 0
    for relationship in relationships:
        ends = (matched.get(relationship.source_id), matched.get(relationship.target_id))
        if ends[0] is not None and ends[1] is not None:
            pair = frozenset((ends[0], ends[1]))
            if pair in gold.pairs:
                right += 1
                found_pairs.add(pair)
    return Scores(
        entity_precision=_ratio(len(matched), len(entities)),
        entity_recall=_ratio(len(named_by), len(gold.entities)),
        relationship_precision=_ratio(right, len(relationships)),
        relationship_recall=_ratio(len(found_pairs), len(gold.pairs)),
        duplicates_unmerged=sum(count - 1 for count in named_by.values()),
        graph_entities=len(entities),
        gold_entities=len(gold.entities),
        graph_relationships=len(relationships),
        gold_relationships=len(gold.pairs),
    )


def gold_documents(gold: Gold, root: Path = ROOT) -> list[SourceDocument]:
    """The gold set's documents, read as `redstring build` reads files (ids from the root)."""
    return [
        document.model_copy(update={"id": path})
        for path in gold.paths
        for document in read_documents([str(root / path)]).documents
    ]


async def evaluate(
    provider: LlmProvider, gold: Gold, *, domain: str | None = None, pair_questions: int = 0
) -> tuple[Scores, dict[str, Any]]:
    """Build the gold documents with `provider` into fresh stores and score the graph."""
    graph = InMemoryGraphStore()
    report = await build_graph(
        gold_documents(gold),
        provider=provider,
        graph=graph,
        tenant_id=DEFAULT_TENANT,
        domain=domain or gold.domain,
        max_failed_share=1.0,
        pair_questions=pair_questions,
    )
    scores = score_graph(
        gold,
        await graph.list_entities(DEFAULT_TENANT),
        await graph.list_relationships(DEFAULT_TENANT),
    )
    details = {
        "failure_causes": report.failure_causes,
        "answer_format": report.answer_format,
        "types_outside_domain": report.types_outside_domain,
        "merges": len(report.merges),
    }
    return scores, details


def _print(scores: Scores, details: dict[str, Any]) -> None:
    print(f"entities       precision {scores.entity_precision:.3f}  recall "
          f"{scores.entity_recall:.3f}  ({scores.graph_entities} built, "
          f"{scores.gold_entities} in the gold set)")  # fmt: skip
    print(f"relationships  precision {scores.relationship_precision:.3f}  recall "
          f"{scores.relationship_recall:.3f}  ({scores.graph_relationships} built, "
          f"{scores.gold_relationships} gold pairs)")  # fmt: skip
    print(f"duplicates left unmerged  {scores.duplicates_unmerged}")
    print(f"merges {details['merges']}, answer format {details['answer_format']}, "
          f"failed chunks {details['failure_causes'] or 'none'}, "
          f"types outside the domain {details['types_outside_domain'] or 'none'}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, run the evaluation against the server, print the figures."""
    from redstring.llm.openai_compatible import (  # noqa: PLC0415 (optional extra)
        STRUCTURED_OUTPUTS,
        OpenAICompatibleLlmProvider,
    )

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="OpenAI-protocol API root, e.g. .../v1")
    parser.add_argument("--model", required=True, help="the server's name for the chat model")
    parser.add_argument("--api-key")
    parser.add_argument("--domain", help="domain schema (default: the gold set's, general)")
    parser.add_argument("--structured-output", choices=STRUCTURED_OUTPUTS, default="auto")
    parser.add_argument("--max-tokens", type=int)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument(
        "--documents", type=int, help="score the gold set's first N documents only (default all)"
    )
    parser.add_argument(
        "--pair-questions", type=int, default=0, help="pairs asked about per chunk (default 0)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    async def run() -> tuple[Scores, dict[str, Any]]:
        async with OpenAICompatibleLlmProvider(
            base_url=args.base_url,
            model=args.model,
            api_key=args.api_key,
            structured_output=args.structured_output,
            max_tokens=args.max_tokens,
            timeout=args.timeout,
            max_concurrency=args.concurrency,
        ) as provider:
            return await evaluate(
                provider,
                load_gold(documents=args.documents),
                domain=args.domain,
                pair_questions=args.pair_questions,
            )

    scores, details = asyncio.run(run())
    if args.json:
        print(json.dumps({**asdict(scores), **details}, indent=2))
    else:
        _print(scores, details)
    return 0


if __name__ == "__main__":
    sys.exit(main())
