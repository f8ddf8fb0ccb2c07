"""One search, checked once where it enters the library and trusted below.

`SearchRequest.of` runs every guard a search needs (a non-blank query, `k`,
the tenant id, the filter's items: text holding no NUL, `min_confidence`) and
normalises the query once; the retrievers' `search(request)` and what they call read its fields
without checking them again. `mode` is already resolved: the caller turned
"the default" into a mode and refused one its setup cannot serve.
"""

from __future__ import annotations

from dataclasses import dataclass

from redstring.domain.confidence import require_min_confidence
from redstring.domain.ids import TenantId
from redstring.domain.query import NormalizedQuery
from redstring.domain.retrieval import RetrievalMode
from redstring.domain.validation import (
    require_k,
    require_lookup_items,
    require_query,
    require_tenant_id,
)


@dataclass(frozen=True)
class SearchRequest:
    """A checked search: the query with its matching forms, tenant, `k`, mode and filters.

    `only` keeps the entity types (entity search) or source ids (passage
    search) it lists; `None` keeps everything and `()` nothing.
    """

    query: NormalizedQuery
    tenant_id: TenantId
    k: int
    mode: RetrievalMode
    only: tuple[str, ...] | None = None
    min_confidence: float | None = None

    @classmethod
    def of(
        cls,
        query: object,
        tenant_id: object,
        *,
        k: object,
        mode: RetrievalMode,
        only: object = None,
        only_name: str = "entity_types",
        min_confidence: object = None,
    ) -> SearchRequest:
        """Check every argument once; raises `InvalidArgumentError` naming the first bad one.

        `only_name` is the filter's name in the caller's signature, for the message.
        """
        text = require_query(query)
        count = require_k(k)
        threshold = require_min_confidence(min_confidence)
        tenant = TenantId(require_tenant_id(tenant_id))
        items = require_lookup_items(only_name, only)
        return cls(
            query=NormalizedQuery.of(text),
            tenant_id=tenant,
            k=count,
            mode=mode,
            only=None if items is None else tuple(items),
            min_confidence=threshold,
        )

    @property
    def text(self) -> str:
        """The query as given."""
        return self.query.text

    def filter_list(self) -> list[str] | None:
        """`only` as the list the stores take."""
        return None if self.only is None else list(self.only)
