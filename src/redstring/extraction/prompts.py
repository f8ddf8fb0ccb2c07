"""The prompts extraction sends. Pure text assembly; no model calls here."""

from __future__ import annotations

from collections.abc import Sequence

from redstring.domain.chunk import TextSpan
from redstring.domain.document import SourceDocument
from redstring.extraction.domains import OTHER, DomainSchema

CLASSIFY_MARKER = "Choose the domain schema"
EXCERPT_CHARACTERS = 600


def extraction_system_prompt(domain: DomainSchema) -> str:
    """The system prompt for extracting one chunk under `domain`."""
    return (
        "You extract a knowledge graph from a passage of a document.\n"
        f"Domain: {domain.name}. {domain.description}\n"
        f"Entity types: {', '.join(domain.entity_types)}.\n"
        f"Relationship types: {', '.join(domain.relationship_types)}.\n"
        f"{_other(domain)}"
        f"{domain.hints}\n"
        "Report only entities the passage names, with a one-sentence description and any "
        "properties it states. Report a relationship only between two entities you report, "
        "naming each end exactly as in your entities list. Answer with JSON only."
    )


def _other(domain: DomainSchema) -> str:
    if domain.allows_other:
        return f"Use only these types; for anything else use {OTHER!r}.\n"
    return "Use only these types; leave out what fits none of them.\n"


def extraction_user_prompt(document: SourceDocument, span: TextSpan, index: int, total: int) -> str:
    """The user prompt carrying chunk `index` (0-based) of `total` of `document`."""
    title = document.title or document.id
    return f"Document: {title}\nPassage {index + 1} of {total}:\n<<<\n{span.text}\n>>>"


def classification_system_prompt(domains: Sequence[DomainSchema]) -> str:
    """The system prompt asking the model to pick one of `domains`."""
    listing = "\n".join(f"- {domain.name}: {domain.description}" for domain in domains)
    return (
        "You classify documents by the kind of knowledge they hold.\n"
        f"Domains:\n{listing}\n"
        "Answer with JSON: the domain's name and your confidence from 0 to 1."
    )


def classification_user_prompt(documents: Sequence[SourceDocument]) -> str:
    """The user prompt showing the opening of each document."""
    excerpts = "\n---\n".join(document.text[:EXCERPT_CHARACTERS].strip() for document in documents)
    return f"{CLASSIFY_MARKER} for these documents:\n<<<\n{excerpts}\n>>>"
