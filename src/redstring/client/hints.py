"""Why an answer is empty, in one sentence the caller can act on (B167, ADR 0163).

Asked only when a search found nothing, and answered from aggregates (the
stores' summaries, counts and tenant lists), never by loading rows: the
tenant holds nothing (and which tenants do), holds passages but no entities
(build them), entities but no passages (index), a channel had nothing to
search (nothing embedded), a filter named what the tenant does not hold
(and what it holds closest, as the MCP server says it), or nothing reached
`min_confidence`.
"""

from __future__ import annotations

from collections.abc import Sequence

from redstring.client.store_set import StoreSet
from redstring.domain.held_names import unheld_names
from redstring.domain.ids import TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.retrieval import RetrievalMode


async def _holdings(stores: StoreSet, tenant_id: TenantId) -> tuple[int, int]:
    entities = (await stores.graph.graph_summary(tenant_id)).entities
    chunks = 0 if stores.chunks is None else (await stores.chunks.chunk_summary(tenant_id)).chunks
    return entities, chunks


async def nothing_held(stores: StoreSet, tenant_id: TenantId) -> str | None:
    """That `tenant_id` holds nothing, naming the tenants that hold data; `None` if it holds some.

    A tenant is never made, only written to, so one holding nothing is most
    likely a mistyped name: an empty answer and an upkeep job (`rebuild`) say so.
    """
    if any(await _holdings(stores, tenant_id)):
        return None
    return await _others_hold(stores, tenant_id)


async def other_tenants(stores: StoreSet, tenant_id: TenantId) -> list[str]:
    """The tenants other than `tenant_id` holding entities or passages, by id string, sorted."""
    tenants = set(await stores.graph.list_tenants())
    if stores.chunks is not None:
        tenants.update(await stores.chunks.list_tenants())
    return sorted(str(tenant) for tenant in tenants if tenant != tenant_id)


async def _others_hold(stores: StoreSet, tenant_id: TenantId) -> str:
    others = await other_tenants(stores, tenant_id)
    if not others:
        return f"tenant {tenant_id} holds nothing, nor does any other: index or build first."
    return (
        f"tenant {tenant_id} holds nothing in this database (check the tenant name); "
        f"tenants holding data: {', '.join(others)}."
    )


async def empty_hint(
    stores: StoreSet,
    tenant_id: TenantId,
    *,
    passages: bool,
    mode: RetrievalMode,
    min_confidence: float | None,
    only: Sequence[str] | None = None,
) -> str:
    """Why a search of `tenant_id` found nothing: of passages if `passages`, else of entities.

    `only` is the type (entities) or source (passages) filter's values, if one
    was given: the ones the tenant does not hold are named, with the closest
    it holds (`unheld_names`, as the MCP server names them).
    """
    entities, chunks = await _holdings(stores, tenant_id)
    if entities == 0 and chunks == 0:
        return await _others_hold(stores, tenant_id)
    what, held = ("passage", chunks) if passages else ("entity", entities)
    if held == 0:
        return (
            f"tenant {tenant_id} holds {entities} entities but no passages: index the "
            "documents (`redstring index`, `Redstring.index`) to search their text."
            if passages
            else f"tenant {tenant_id} holds {chunks} passage(s) but no entities: build extracts "
            "them (`redstring build`, `Redstring.build`); search the passages meanwhile."
        )
    if only is not None:
        unheld = await _unheld_filter(stores, tenant_id, only, passages=passages)
        if unheld is not None:
            return unheld
    if min_confidence is not None:
        return f"no {what} reached min_confidence={min_confidence}; lower it to see weaker matches."
    if only is not None:
        kind = "source" if passages else "type"
        return f"no {what} of the given {kind}s matched; drop the {kind} filter to search all."
    words = (
        "no passage shares a word with the query."
        if passages
        else "no entity name or alias matched the query's words."
    )
    if mode is RetrievalMode.LEXICAL:
        return words
    # With any vector stored the semantic channel always ranks some: none is stored.
    if passages:
        nothing = (
            "the semantic channel had nothing to search: no passage has an embedding "
            "(indexed or built without an embedding provider)"
        )
        fix = "index them with a provider"
    elif await stores.vectors.count(tenant_id) == 0:
        nothing = (
            "the semantic channel had nothing to search: the tenant's entities have no "
            "vectors (built without embeddings)"
        )
        fix = "build with a provider"
    else:
        return words
    if mode is RetrievalMode.SEMANTIC:  # the lexical channel never ran: say nothing of words
        return f"{nothing}; {fix}, or search with mode 'lexical'."
    return f"{nothing}, and {words}"


#: At most this many of the filter's values are quoted in a hint.
_SHOWN = 5


async def _unheld_filter(
    stores: StoreSet, tenant_id: TenantId, only: Sequence[str], *, passages: bool
) -> str | None:
    """That the filter `only` names what `tenant_id` does not hold, and the closest it does."""
    if passages:
        kind = "source"
        held = (
            [] if stores.chunks is None else (await stores.chunks.chunk_summary(tenant_id)).sources
        )
        found = unheld_names(only, held)
    else:
        kind = "type"
        held = (await stores.graph.graph_summary(tenant_id)).entity_types
        found = unheld_names(only, held, fold=normalize_name)
    if found is None:
        return None
    names = ", ".join(repr(name) for name in found.names[:_SHOWN])
    if len(found.names) > _SHOWN:
        names += f" and {len(found.names) - _SHOWN} more"
    plural = "s" if len(found.names) > 1 else ""
    said = (
        f"tenant {tenant_id} holds no {kind}{plural} {names}, so nothing could match"
        if len(found.names) == len(set(only))
        else f"no {'passage' if passages else 'entity'} of the given {kind}s matched, and "
        f"tenant {tenant_id} holds no {kind}{plural} {names}"
    )
    if found.closest:
        return f"{said}. Closest held: {', '.join(found.closest)}."
    some = sorted(held)[:3]
    return f"{said}; it holds {len(held)} {kind}s, e.g. {', '.join(some)}."
