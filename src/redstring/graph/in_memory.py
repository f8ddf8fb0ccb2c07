"""A complete graph store held in process memory."""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from redstring.domain.blocking import KEY_VERSION, MAX_BLOCK_MEMBERS, blocking_keys_for
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import UnknownEntityError
from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.summary import GraphSummary, graph_summary_of
from redstring.domain.validation import require_at_least_one, require_keys, require_tenant_id
from redstring.domain.writable_graph import require_writable_graph
from redstring.graph.in_memory_filing import Filing, Keys
from redstring.storage.describe import DescribedStore

#: A key settling at least this many pending ids is re-sorted, not inserted into.
_BULK = 16
#: Entity types repeat across a tenant: their normalised form is computed once each.
_type_form = lru_cache(maxsize=4096)(normalize_name)


@dataclass
class _Tenant:
    """One tenant's partition. Entities are keyed, and filed in blocks, by their id's
    number (`EntityId.int`): a UUID orders exactly as its canonical string (ADR 0101), and
    an int hashes and compares in C where a UUID runs Python code for both."""

    #: id number -> entity.
    entities: dict[int, Entity] = field(default_factory=dict)
    relationships: dict[RelationshipId, Relationship] = field(default_factory=dict)
    #: key -> the id numbers filed under it, ascending (id-string order), so a capped
    #: read is a slice and `find_ids_by_blocking_keys` hands it out as it is.
    blocks: dict[str, list[int]] = field(default_factory=dict)
    #: key -> ids filed under it since the key was last read, a batch at a time as arrays; a
    #: read of the key merges them into `blocks` first (`_settle`), so a bulk load sorts each
    #: block once (ADR 0215, 0300).
    pending: Filing = field(default_factory=Filing)
    #: id number -> the numbers `pending` gave the keys it is filed under.
    keys_of: dict[int, Keys] = field(default_factory=dict)
    #: id number -> the KEY_VERSION its keys were computed with.
    version_of: dict[int, int] = field(default_factory=dict)
    edges_of: defaultdict[EntityId, set[RelationshipId]] = field(
        default_factory=lambda: defaultdict(set)
    )
    #: normalised type -> how many entities carry it (kept as entities come and go).
    type_counts: Counter[str] = field(default_factory=Counter)


class InMemoryGraphStore(DescribedStore):
    """A `GraphStore` for a single process: complete, tenant-scoped, not a test double.

    Each tenant's data lives in its own partition. Blocking keys are indexed
    in a dict of id-sorted lists, so `find_by_blocking_keys` is a lookup and
    its cap a slice. Objects are copied on the way in and out, so a caller
    mutating one cannot change what is stored.
    """

    def __init__(self) -> None:
        self._tenants: defaultdict[TenantId, _Tenant] = defaultdict(_Tenant)

    async def upsert(
        self, entities: Sequence[Entity], relationships: Sequence[Relationship] = ()
    ) -> None:
        require_writable_graph(entities, relationships)
        batch = {(entity.tenant_id, entity.id) for entity in entities}
        for relationship in relationships:
            for end in (relationship.source_id, relationship.target_id):
                tenant = relationship.tenant_id
                if (tenant, end) not in batch and end.int not in self._part(tenant).entities:
                    raise UnknownEntityError(entity_id=end, tenant_id=tenant)
        latest = {(entity.tenant_id, entity.id): entity for entity in entities}
        by_tenant: defaultdict[TenantId, list[Entity]] = defaultdict(list)
        for (tenant, _), entity in latest.items():
            by_tenant[tenant].append(entity.copy_deep())
        for tenant, written in by_tenant.items():
            part = self._tenants[tenant]
            for entity in written:
                replaced = part.entities.get(entity.id.int)
                if replaced is not None:
                    _uncount(part, replaced)
                part.entities[entity.id.int] = entity
                part.type_counts[_type_form(entity.entity_type)] += 1
            self._index(part, written)
        for relationship in relationships:
            self._put_relationship(relationship.model_copy(deep=True))

    async def get_entities(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Entity]:
        require_tenant_id(tenant_id)
        held = self._part(tenant_id).entities
        found = (held.get(number) for number in dict.fromkeys(i.int for i in entity_ids))
        return [entity.copy_deep() for entity in found if entity is not None]

    async def find_by_type(self, entity_type: str, tenant_id: TenantId) -> list[Entity]:
        require_tenant_id(tenant_id)
        wanted = normalize_name(entity_type)
        return [
            entity
            for entity in await self.list_entities(tenant_id)
            if normalize_name(entity.entity_type) == wanted
        ]

    async def list_entities(self, tenant_id: TenantId) -> list[Entity]:
        require_tenant_id(tenant_id)
        held = self._part(tenant_id).entities.values()
        return [entity.copy_deep() for entity in sorted(held, key=lambda e: str(e.id))]

    async def list_relationships(self, tenant_id: TenantId) -> list[Relationship]:
        require_tenant_id(tenant_id)
        held = self._part(tenant_id).relationships.values()
        return [rel.model_copy(deep=True) for rel in sorted(held, key=lambda r: str(r.id))]

    async def list_tenants(self) -> list[TenantId]:
        held = (tenant for tenant, part in self._tenants.items() if part.entities)
        return sorted(held, key=str)

    async def graph_summary(self, tenant_id: TenantId) -> GraphSummary:
        require_tenant_id(tenant_id)
        part = self._part(tenant_id)
        return graph_summary_of(part.type_counts.items(), len(part.relationships))

    async def relationships_of(
        self, entity_id: EntityId, tenant_id: TenantId
    ) -> list[Relationship]:
        require_tenant_id(tenant_id)
        part = self._part(tenant_id)
        ids = sorted(part.edges_of.get(entity_id, set()), key=str)
        return [part.relationships[rid].model_copy(deep=True) for rid in ids]

    async def neighbours(
        self, entity_id: EntityId, tenant_id: TenantId
    ) -> list[tuple[Relationship, Entity]]:
        require_tenant_id(tenant_id)
        held = self._part(tenant_id).entities
        result: list[tuple[Relationship, Entity]] = []
        for relationship in await self.relationships_of(entity_id, tenant_id):
            at_source = relationship.source_id == entity_id
            other = held.get((relationship.target_id if at_source else relationship.source_id).int)
            if other is not None:
                result.append((relationship, other.copy_deep()))
        return result

    async def find_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, list[Entity]]:
        require_keys(keys)
        require_tenant_id(tenant_id)
        require_at_least_one("limit", limit)
        part = self._part(tenant_id)
        _settle(part, part.pending.take(keys))
        copies: dict[int, Entity] = {}  # one copy per entity per call
        result: dict[str, list[Entity]] = {}
        for key in keys:
            members = part.blocks.get(key, [])[:limit]
            result[key] = [
                copies[number]
                if number in copies
                else copies.setdefault(number, part.entities[number].copy_deep())
                for number in members
            ]
        return result

    async def find_ids_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, list[int]]:
        require_keys(keys)
        require_tenant_id(tenant_id)
        require_at_least_one("limit", limit)
        part = self._part(tenant_id)
        _settle(part, part.pending.take(keys))
        blocks = part.blocks
        return {key: blocks[key][:limit] if key in blocks else [] for key in keys}

    async def get_names(self, numbers: Sequence[int], tenant_id: TenantId) -> dict[int, list[str]]:
        require_tenant_id(tenant_id)
        held = self._part(tenant_id).entities
        found = ((number, held.get(number)) for number in numbers)
        return {number: [e.name, *e.aliases] for number, e in found if e is not None}

    async def count_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, int]:
        require_tenant_id(tenant_id)
        require_at_least_one("limit", limit)
        part = self._part(tenant_id)
        blocks, waiting = part.blocks, part.pending.count(keys)
        return {key: min(len(blocks.get(key, ())) + waiting.get(key, 0), limit) for key in keys}

    async def blocking_key_version(self, tenant_id: TenantId) -> int | None:
        require_tenant_id(tenant_id)
        versions = self._part(tenant_id).version_of.values()
        return min(versions, default=None)

    async def rebuild_blocking_index(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)
        part = self._part(tenant_id)
        held = list(part.entities.values())
        part.blocks, part.pending = {}, Filing()  # filed afresh: nothing to take out first
        part.keys_of.clear()
        part.version_of.clear()
        self._index(part, held)
        return len(held)

    async def delete_entities(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        part = self._part(tenant_id)
        gone: list[int] = []
        for entity_id in entity_ids:
            if entity_id.int not in part.entities:
                continue
            for relationship_id in list(part.edges_of.get(entity_id, set())):
                self._drop_relationship(part, relationship_id)
            gone.append(entity_id.int)
            _uncount(part, part.entities.pop(entity_id.int))
            part.edges_of.pop(entity_id, None)
        _unindex(part, gone)

    async def delete_relationships(
        self, relationship_ids: Sequence[RelationshipId], tenant_id: TenantId
    ) -> None:
        require_tenant_id(tenant_id)
        part = self._part(tenant_id)
        for relationship_id in relationship_ids:
            self._drop_relationship(part, relationship_id)

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        self._tenants.pop(tenant_id, None)

    def _part(self, tenant_id: TenantId) -> _Tenant:
        part = self._tenants.get(tenant_id)
        return part if part is not None else _Tenant()

    @staticmethod
    def _index(part: _Tenant, entities: Sequence[Entity]) -> None:
        """File each entity (ids distinct) under its current keys, replacing its old ones.

        New ids wait in `pending` until their key is next read, so a bulk load
        of many batches sorts each block once rather than once per batch.
        """
        ids = [entity.id.int for entity in entities]
        _unindex(part, ids)
        numbers = part.pending.add(ids, [blocking_keys_for(entity) for entity in entities])
        part.keys_of.update(zip(ids, numbers, strict=True))
        part.version_of.update(dict.fromkeys(ids, KEY_VERSION))

    def _put_relationship(self, relationship: Relationship) -> None:
        part = self._tenants[relationship.tenant_id]
        self._drop_relationship(part, relationship.id)
        part.relationships[relationship.id] = relationship
        part.edges_of[relationship.source_id].add(relationship.id)
        part.edges_of[relationship.target_id].add(relationship.id)

    @staticmethod
    def _drop_relationship(part: _Tenant, relationship_id: RelationshipId) -> None:
        relationship = part.relationships.pop(relationship_id, None)
        if relationship is None:
            return
        for end in (relationship.source_id, relationship.target_id):
            edges = part.edges_of.get(end)
            if edges is not None:
                edges.discard(relationship_id)


def _settle(part: _Tenant, waiting: dict[str, list[int]]) -> None:
    """Merge each key's `waiting` id numbers (taken from `part.pending`) into its block."""
    blocks = part.blocks
    for key, ids in waiting.items():
        block = blocks.get(key)
        if block is None:
            block = blocks[key] = []
        if len(ids) < _BULK:
            for number in ids:
                insort(block, number)
        else:
            block.extend(ids)
            block.sort()


def _unindex(part: _Tenant, numbers: Iterable[int]) -> None:
    """Take each id of `numbers` (if filed) out of every block it is filed in."""
    keys_of = part.keys_of
    gone = [(number, keys_of.pop(number)) for number in numbers if number in keys_of]
    if not gone:
        return
    filed = np.unique(np.concatenate([keys for _, keys in gone]))
    _settle(part, part.pending.take_numbers(filed))  # so each block holds all its ids
    blocks = part.blocks
    for number, keys in gone:
        del part.version_of[number]
        for key in part.pending.texts(keys):
            members = blocks[key]
            del members[bisect_left(members, number)]
            if not members:
                del blocks[key]


def _uncount(part: _Tenant, entity: Entity) -> None:
    """Take `entity` out of its tenant's type counts; a type counted zero disappears."""
    entity_type = _type_form(entity.entity_type)
    part.type_counts[entity_type] -= 1
    if not part.type_counts[entity_type]:
        del part.type_counts[entity_type]
