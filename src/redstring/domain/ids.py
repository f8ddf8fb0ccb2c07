"""Identifiers, and the one place deterministic ids are derived.

Every id is a UUID under a `NewType`, so a tenant id cannot be passed where an
entity id is expected without the type checker saying so. Ids derived from
content use UUIDv5 under `REDSTRING_NAMESPACE`: the same inputs give the same
id on every machine and in every store, which is what makes re-extracting a
document idempotent and a store rebuildable by replay.
"""

from __future__ import annotations

from typing import NewType
from uuid import UUID, SafeUUID, uuid4, uuid5

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.normalization import normalize_name
from redstring.domain.validation import require_str

TenantId = NewType("TenantId", UUID)
EntityId = NewType("EntityId", UUID)
RelationshipId = NewType("RelationshipId", UUID)

#: The UUIDv5 namespace of every derived id. Changing it re-keys every store.
REDSTRING_NAMESPACE = UUID("6f1c2a3e-8d4b-5e7f-9a0b-1c2d3e4f5a6b")

_SEPARATOR = "\x1f"  # unit separator: cannot occur in a normalised name (it is whitespace)


def length_prefixed(*fields: str) -> bytes:
    """Each field as `<UTF-8 byte length>:<UTF-8 bytes>`, concatenated (ADR 0133).

    Injective: two different tuples of fields never give the same bytes, whatever
    the fields contain, because each field's extent is stated before it. The
    encoding of any derived id whose fields are free text (a chunk's source id
    and text); SQL migrations rebuild it with `octet_length`.
    Raises `UnicodeEncodeError` for a lone surrogate (the boundary refuses those first).
    """
    encoded = [field.encode("utf-8") for field in fields]
    return b"".join(b"%d:%s" % (len(part), part) for part in encoded)


def entity_id_from_int(number: int) -> EntityId:
    """The entity id whose 128-bit number is `number`: in every way `UUID(int=number)`.

    Set up as `UUID.__init__` sets itself up, without its checks of which
    argument was given (psycopg builds its UUIDs alike): the lexical channel
    ranks ids as numbers and makes ids of the few it keeps (B206(c)).
    Raises `ValueError` when `number` is outside 0..2**128 - 1.
    """
    if not 0 <= number < ID_NUMBER_LIMIT:
        raise ValueError(f"an id's number is in 0..2**128 - 1, got {number}")
    made = _NEW_UUID(UUID)
    _SET(made, "int", number)
    _SET(made, "is_safe", SafeUUID.unknown)
    return EntityId(made)


_NEW_UUID = object.__new__
_SET = object.__setattr__
#: One past the largest id number (`EntityId.int`): a UUID is 128 bits.
ID_NUMBER_LIMIT = 1 << 128


def new_tenant_id() -> TenantId:
    """A fresh random tenant id."""
    return TenantId(uuid4())


def tenant_id_for(name: str) -> TenantId:
    """The tenant id a tenant *name* stands for: the same name, the same id, everywhere.

    Surrounding whitespace is stripped, as the command line's `--tenant` does
    (so `" acme "` and `"acme"` are one tenant); otherwise names are compared
    exactly (no normalisation: a tenant is an account, not a spelling).
    Raises `InvalidArgumentError` (a `ValueError`) for a blank name, one that
    is not a `str`, or one holding a lone surrogate.
    """
    text = require_str("name", name).strip()
    if not text:
        raise InvalidArgumentError(
            name="name",
            value=name,
            requirement="not blank",
            message="a tenant name must not be blank; pass a name or a UUID",
        )
    return TenantId(uuid5(REDSTRING_NAMESPACE, _SEPARATOR.join(["tenant", text])))


def entity_id_for(tenant_id: TenantId, entity_type: str, name: str) -> EntityId:
    """The id of the entity of `entity_type` named `name` in `tenant_id`.

    Type and name are normalised with `normalize_name` first, so "ACME  Corp"
    and "acme corp" of one type in one tenant are the same entity. The tenant
    is part of the input: two tenants never share a derived id. Raises
    `InvalidArgumentError` naming `entity_type` or `name` for a lone surrogate.
    """
    kind, text = require_str("entity_type", entity_type), require_str("name", name)
    material = _SEPARATOR.join(
        ["entity", str(tenant_id), normalize_name(kind), normalize_name(text)]
    )
    return EntityId(uuid5(REDSTRING_NAMESPACE, material))


def relationship_id_for(
    tenant_id: TenantId, source_id: EntityId, relationship_type: str, target_id: EntityId
) -> RelationshipId:
    """The id of the `relationship_type` edge from `source_id` to `target_id`.

    Raises `InvalidArgumentError` naming `relationship_type` for a lone surrogate.
    """
    require_str("relationship_type", relationship_type)
    material = _SEPARATOR.join(
        [
            "relationship",
            str(tenant_id),
            str(source_id),
            normalize_name(relationship_type),
            str(target_id),
        ]
    )
    return RelationshipId(uuid5(REDSTRING_NAMESPACE, material))
