"""Letting the model choose the domain schema a build extracts with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from redstring.domain.document import SourceDocument
from redstring.domain.errors import DomainClassificationError, RedstringError
from redstring.extraction.answer import DomainChoice, domain_choice_schema
from redstring.extraction.domains import (
    GENERAL,
    AutoDomain,
    DomainSchema,
    DomainSpec,
    bundled_domains,
    resolve_domain,
)
from redstring.extraction.prompts import (
    classification_system_prompt,
    classification_user_prompt,
)
from redstring.ports.llm_provider import LlmProvider

DOCUMENTS_SHOWN = 5


class DomainDecision(BaseModel):
    """Which schema runs, who chose it, and how sure the model was (0..1; `None` if unasked).

    `chosen_by` is "caller" for an explicit domain, "model" for AUTO, and
    "fallback" when AUTO's classification failed and `general` ran instead;
    `failure` then says why.
    """

    domain_schema: DomainSchema
    chosen_by: Literal["caller", "model", "fallback"]
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    failure: str | None = None

    @property
    def name(self) -> str:
        """The name of the schema that runs."""
        return self.domain_schema.name


async def decide_domain(
    domain: DomainSpec,
    provider: LlmProvider,
    documents: Sequence[SourceDocument],
    *,
    strict: bool = False,
) -> DomainDecision:
    """Resolve `domain`; for `AUTO`, one model call on the first documents' openings.

    Without documents AUTO resolves to `general` with no model call. A failed
    classification raises `DomainClassificationError` under `strict`, else
    falls back to `general`. An unknown name raises `UnknownDomainError`.
    """
    if not isinstance(domain, AutoDomain):
        return DomainDecision(domain_schema=resolve_domain(domain), chosen_by="caller")
    known = bundled_domains()
    shown = [document for document in documents if document.text.strip()][:DOCUMENTS_SHOWN]
    if not shown:
        return DomainDecision(domain_schema=known[GENERAL], chosen_by="fallback", failure="no text")
    try:
        raw = await provider.complete_json(
            system=classification_system_prompt(list(known.values())),
            user=classification_user_prompt(shown),
            schema=domain_choice_schema(list(known)),
        )
        choice = DomainChoice.model_validate(raw)
        schema = known[choice.domain]
    except (RedstringError, ValidationError, KeyError) as error:
        cause = f"{type(error).__name__}: {error}"
        if strict:
            raise DomainClassificationError(cause=cause) from error
        return DomainDecision(domain_schema=known[GENERAL], chosen_by="fallback", failure=cause)
    return DomainDecision(domain_schema=schema, chosen_by="model", confidence=choice.confidence)
