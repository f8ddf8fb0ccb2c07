"""What the MCP tools answer: the client's answers, cut to what an agent reads (ADR 0175, 0210).

Each result carries its `confidence`; the channel scores come only when
asked (`explain`). Scores are rounded to 3 places; the fused rank score, ranks, offsets, tenant
and relationship ids are left out (order is rank; the tenant is the
server's). An entity search answers one row per entity under one `columns`
header (keys once per answer, not once per entity), each description cut at
`DESCRIPTION_TEXT` characters (`get_entity` gives it whole). A passage
search answers objects, a channel that did not rank an item having no key
rather than a `null`; passage text is cut at `PASSAGE_TEXT` characters and
`more_at` says where `read_passage` continues it. Each answer is sent once
as compact JSON text and once as structured content matching the tool's
output schema.
"""

from __future__ import annotations

from pydantic import BaseModel
from pydantic_core import to_json

from redstring.client.answers import EntityAnswer, EntitySearchAnswer, PassageSearchAnswer
from redstring.client.catalogue import TenantCatalogue
from redstring.domain.chunk import StoredChunk

#: The characters of a description an entity search shows; `get_entity` gives it whole.
DESCRIPTION_TEXT = 90
#: What ends a description the search cut short.
CUT_MARK = "…"
#: The columns of an entity search's rows, in order; `explain` adds `EXPLAIN_COLUMNS`.
ENTITY_COLUMNS = ("id", "name", "type", "confidence", "description", "aliases")
#: The channel scores `explain` adds to each row (`null`: that ranking did not find it).
EXPLAIN_COLUMNS = ("semantic", "lexical")
#: The characters of a passage a search shows; `read_passage` reads the rest.
PASSAGE_TEXT = 500
#: The characters one `read_passage` call returns.
READ_TEXT = 2000
#: The most neighbours `get_entity` lists.
MAX_NEIGHBOURS = 50
#: The most sources `describe_tenant` lists.
MAX_SOURCES = 100


def _round(score: float | None) -> float | None:
    return None if score is None else round(score, 3)


def _cut(text: str, start: int, length: int) -> tuple[str, int | None]:
    """`text[start:]` up to `length` characters, ended at a space where one is near the end.

    Returns the piece and the offset of what follows it, `None` at the end.
    """
    end = start + length
    if end >= len(text):
        return text[start:], None
    space = text.rfind(" ", start + length * 4 // 5, end)
    if space > start:
        end = space + 1
    return text[start:end], end


#: One value of an entity row: an id, name, type or description, a score, aliases, or `null`.
Cell = str | float | list[str] | None


class EntitySearchResult(BaseModel):
    """The entities best matching a query, best first: one row each, in `columns` order."""

    mode: str
    columns: list[str]
    matches: list[list[Cell]]
    note: str | None = None
    #: With `explain`: how HYBRID fused the channels, with the weight it used.
    fusion: str | None = None


class PassageMatch(BaseModel):
    """One passage a search found; `more_at` is where its text continues (absent: it is all)."""

    passage_id: str
    source: str
    text: str
    more_at: int | None = None
    confidence: float | None = None
    semantic: float | None = None
    lexical: float | None = None


class PassageSearchResult(BaseModel):
    """The passages best matching a query, best first."""

    mode: str
    matches: list[PassageMatch]
    note: str | None = None
    #: With `explain`: how HYBRID fused the channels (e.g. "convex semantic_weight=0.25 depth=50").
    fusion: str | None = None


class PassageText(BaseModel):
    """A piece of one passage's text from `offset`; `more_at` is where it continues."""

    passage_id: str
    source: str
    offset: int
    text: str
    more_at: int | None = None


class Related(BaseModel):
    """A relationship of the entity and the entity at its other end."""

    relationship: str
    direction: str
    description: str | None = None
    id: str
    name: str
    type: str


class EntityFacts(BaseModel):
    """One entity, its sources and relationships (at most `MAX_NEIGHBOURS`, of `related_total`)."""

    id: str
    name: str
    type: str
    description: str
    aliases: list[str] | None = None
    properties: dict[str, object] | None = None
    sources: list[str] | None = None
    related: list[Related]
    related_total: int


class TenantDescription(BaseModel):
    """What the served knowledge graph holds, with counts."""

    entities: int
    entity_types: dict[str, int]
    relationships: int
    passages: int
    sources: dict[str, int]
    sources_total: int
    modes: list[str]


def entity_result(
    answer: EntitySearchAnswer, note: str | None, *, explain: bool
) -> EntitySearchResult:
    """The rows of an entity search under `ENTITY_COLUMNS`; channel scores and the fusion
    only when `explain`."""
    rows: list[list[Cell]] = []
    for hit in answer.matches:
        description, rest = _cut(hit.description, 0, DESCRIPTION_TEXT)
        if rest is not None:
            description = description.rstrip() + CUT_MARK
        row: list[Cell] = [
            hit.id,
            hit.name,
            hit.type,
            _round(hit.confidence),
            description,
            hit.aliases or None,
        ]
        if explain:
            row += [_round(hit.semantic), _round(hit.lexical)]
        rows.append(row)
    columns = ENTITY_COLUMNS + EXPLAIN_COLUMNS if explain else ENTITY_COLUMNS
    return EntitySearchResult(
        mode=answer.mode.value,
        columns=list(columns),
        matches=rows,
        note=note,
        fusion=answer.fusion if explain else None,
    )


def passage_result(
    answer: PassageSearchAnswer, note: str | None, *, explain: bool
) -> PassageSearchResult:
    """The compact form of a passage search, each text cut at `PASSAGE_TEXT`.

    The channel scores and the fusion only when `explain`.
    """
    matches = []
    for hit in answer.matches:
        text, more_at = _cut(hit.text, 0, PASSAGE_TEXT)
        matches.append(
            PassageMatch(
                passage_id=hit.chunk_id,
                source=hit.source_id,
                text=text,
                more_at=more_at,
                confidence=_round(hit.confidence),
                semantic=_round(hit.semantic) if explain else None,
                lexical=_round(hit.lexical) if explain else None,
            )
        )
    return PassageSearchResult(
        mode=answer.mode.value,
        matches=matches,
        note=note,
        fusion=answer.fusion if explain else None,
    )


def passage_text(chunk: StoredChunk, offset: int) -> PassageText:
    """`READ_TEXT` characters of `chunk` from `offset` (empty past its end)."""
    text, more_at = _cut(chunk.text, offset, READ_TEXT)
    return PassageText(
        passage_id=str(chunk.id), source=chunk.source_id, offset=offset, text=text, more_at=more_at
    )


def entity_facts(answer: EntityAnswer) -> EntityFacts:
    """The compact form of an entity and its first `MAX_NEIGHBOURS` neighbours."""
    entity = answer.entity
    return EntityFacts(
        id=entity.id,
        name=entity.name,
        type=entity.type,
        description=entity.description,
        aliases=entity.aliases or None,
        properties=dict(entity.properties) or None,
        sources=entity.source_document_ids or None,
        related=[
            Related(
                relationship=neighbour.relationship_type,
                direction=neighbour.direction,
                description=neighbour.description or None,
                id=neighbour.entity_id,
                name=neighbour.name,
                type=neighbour.type,
            )
            for neighbour in answer.neighbours[:MAX_NEIGHBOURS]
        ],
        related_total=len(answer.neighbours),
    )


def tenant_description(catalogue: TenantCatalogue, modes: list[str]) -> TenantDescription:
    """The catalogue without other tenants, its sources cut at `MAX_SOURCES` (largest first)."""
    largest = sorted(catalogue.sources.items(), key=lambda item: (-item[1], item[0]))
    return TenantDescription(
        entities=catalogue.entities,
        entity_types=catalogue.entity_types,
        relationships=catalogue.relationships,
        passages=catalogue.passages or 0,
        sources=dict(largest[:MAX_SOURCES]),
        sources_total=len(catalogue.sources),
        modes=modes,
    )


def compact_json(result: BaseModel) -> str:
    """`result` as one line of JSON without absent fields: the text an agent reads."""
    return to_json(result.model_dump(mode="json", exclude_none=True)).decode()
