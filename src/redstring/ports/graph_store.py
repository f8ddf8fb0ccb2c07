"""Storing entities and relationships, per tenant, with a blocking-key index."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from redstring.domain.blocking import MAX_BLOCK_MEMBERS
from redstring.domain.entity import Entity, Relationship
from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.summary import GraphSummary


@runtime_checkable
class GraphReader(Protocol):
    """Reads entities and relationships of one tenant."""

    async def get_entities(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Entity]:
        """The entities of these ids in `tenant_id`; missing ids omitted, order unspecified."""
        ...

    async def find_by_type(self, entity_type: str, tenant_id: TenantId) -> list[Entity]:
        """Every entity of `entity_type` (compared normalised) in `tenant_id`, by id."""
        ...

    async def list_entities(self, tenant_id: TenantId) -> list[Entity]:
        """Every entity of `tenant_id`, ordered by id string."""
        ...

    async def list_relationships(self, tenant_id: TenantId) -> list[Relationship]:
        """Every relationship of `tenant_id`, ordered by id string."""
        ...

    async def list_tenants(self) -> list[TenantId]:
        """Every tenant holding at least one entity, ordered by id string."""
        ...

    async def graph_summary(self, tenant_id: TenantId) -> GraphSummary:
        """How many entities (per normalised type) and relationships `tenant_id` holds.

        Counted by aggregates over the store's indexes, never by loading rows;
        an unknown tenant gives zeros.
        """
        ...

    async def relationships_of(
        self, entity_id: EntityId, tenant_id: TenantId
    ) -> list[Relationship]:
        """Relationships with `entity_id` at either end, ordered by id string."""
        ...

    async def neighbours(
        self, entity_id: EntityId, tenant_id: TenantId
    ) -> list[tuple[Relationship, Entity]]:
        """Each relationship touching `entity_id` with the entity at its other end.

        Ordered by relationship id string; a relationship whose other end the
        store lacks is omitted.
        """
        ...


@runtime_checkable
class BlockingIndex(Protocol):
    """Finds entities by blocking key: an index lookup, never a scan."""

    async def find_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, list[Entity]]:
        """For each key asked for, the entities of `tenant_id` filed under it, capped.

        Every key asked for appears in the result (with `[]` when nothing is
        filed under it); each list is ordered by entity id string and holds
        at most `limit` entities: the first `limit` in that order (a larger
        block is cut, deterministically, never scanned whole).
        Raises `ValueError` when `limit` is below 1.
        """
        ...

    async def find_ids_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, list[int]]:
        """`find_by_blocking_keys` with id numbers (`EntityId.int`) for entities.

        The same keys, order and cap; a number orders as its id's string. Lets
        a caller count key hits before it pays for whole entities, and rank
        thousands of them without building an id each.
        """
        ...

    async def get_names(self, numbers: Sequence[int], tenant_id: TenantId) -> dict[int, list[str]]:
        """For each id number (`EntityId.int`) held in `tenant_id`, its name and then its
        aliases, as stored, keyed by that number.

        Numbers not held (none outside 0..2**128 - 1 is) are left out, a number asked
        twice answers once; each entity is read by its key, never by a scan. Lets the
        lexical channel pre-score a pool of the numbers `find_ids_by_blocking_keys`
        hands it before it pays for whole entities, without building an id of each.
        """
        ...

    async def count_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, int]:
        """For each key asked for, how many entities of `tenant_id` are filed under it.

        Counted up to `limit` (a larger block reports `limit`, never counted
        whole); a key nothing is filed under reports 0. The lexical
        channel weighs trigram keys by these counts. Raises `ValueError` when
        `limit` is below 1.
        """
        ...


@runtime_checkable
class BlockingIndexMaintenance(Protocol):
    """Knows which key scheme built a tenant's blocking index, and rebuilds it."""

    async def blocking_key_version(self, tenant_id: TenantId) -> int | None:
        """The `KEY_VERSION` the tenant's index was built with; `None` for an empty tenant.

        A tenant whose entities were filed under different versions reports
        the lowest, so an incomplete rebuild still shows as stale.
        """
        ...

    async def rebuild_blocking_index(self, tenant_id: TenantId) -> int:
        """Re-file every entity of `tenant_id` under the current `blocking_keys_for`.

        Afterwards `blocking_key_version` is the current `KEY_VERSION`; other
        tenants are untouched. Returns the number of entities re-filed.
        Idempotent.
        """
        ...


@runtime_checkable
class GraphWriter(Protocol):
    """Writes entities and relationships."""

    async def upsert(
        self, entities: Sequence[Entity], relationships: Sequence[Relationship] = ()
    ) -> None:
        """Insert or replace entities and relationships as one atomic batch.

        Everything in the batch must belong to one tenant per item, and each
        relationship's ends must exist (in the store or in the batch) in the
        relationship's tenant, or `UnknownEntityError` is raised and nothing
        is written. An end held only by another tenant is unknown too: the
        error never tells one tenant what another holds.
        """
        ...

    async def delete_entities(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        """Remove these entities and every relationship touching them; missing ids ignored."""
        ...

    async def delete_relationships(
        self, relationship_ids: Sequence[RelationshipId], tenant_id: TenantId
    ) -> None:
        """Remove these relationships; missing ids ignored."""
        ...


@runtime_checkable
class GraphPurge(Protocol):
    """Removes everything of one tenant."""

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        """Delete every entity and relationship of `tenant_id`; other tenants untouched."""
        ...


@runtime_checkable
class GraphStore(
    GraphReader, BlockingIndex, BlockingIndexMaintenance, GraphWriter, GraphPurge, Protocol
):
    """All graph-store capabilities together."""
