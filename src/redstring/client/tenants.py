"""Turning a `--tenant` value into a tenant id.

A UUID is taken as it is; anything else is a tenant *name*, mapped to
`tenant_id_for(name)`. Without `--tenant` every command uses the tenant named
`default`, `DEFAULT_TENANT` (ADR 0081). `client_tenant` reads a client's
`tenant` argument.
"""

from __future__ import annotations

from uuid import UUID

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import TenantId, tenant_id_for

#: The name of the tenant every command uses when `--tenant` is not given.
DEFAULT_TENANT_NAME = "default"

#: `tenant_id_for("default")`, 0dac2287-add2-55ee-a494-2acd53c7f09a.
DEFAULT_TENANT = tenant_id_for(DEFAULT_TENANT_NAME)


def parse_tenant(value: str) -> TenantId:
    """The tenant `value` names: a UUID as given, or the id derived from a name.

    Raises `InvalidArgumentError` for a blank value.
    """
    text = value.strip()
    if not text:
        raise InvalidArgumentError(
            name="tenant",
            value=value,
            requirement="a tenant name or a UUID",
            message="--tenant must not be blank; pass a tenant name or a UUID",
        )
    try:
        return TenantId(UUID(text))
    except ValueError:
        return tenant_id_for(text)


def client_tenant(tenant: str | UUID | None) -> TenantId:
    """The tenant a client's `tenant` argument names (`None`: `DEFAULT_TENANT`).

    Raises `InvalidArgumentError` naming `tenant` for a blank name or another type.
    """
    if tenant is None:
        return DEFAULT_TENANT
    if isinstance(tenant, UUID):
        return TenantId(tenant)
    if not isinstance(tenant, str):
        raise InvalidArgumentError(
            name="tenant", value=tenant, requirement="a tenant name, a UUID, or None"
        )
    try:
        return parse_tenant(tenant)
    except ValueError:
        raise InvalidArgumentError(
            name="tenant", value=tenant, requirement="a non-blank tenant name or a UUID"
        ) from None
