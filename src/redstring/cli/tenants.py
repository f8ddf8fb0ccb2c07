"""The tenant a `--tenant` value names: `redstring.client.tenants`, named here for scripts."""

from __future__ import annotations

from redstring.client.tenants import DEFAULT_TENANT, DEFAULT_TENANT_NAME, parse_tenant

__all__ = ["DEFAULT_TENANT", "DEFAULT_TENANT_NAME", "parse_tenant"]
