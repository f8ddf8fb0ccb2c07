"""Shared settings and helpers of the compliance suites."""

from __future__ import annotations

import os
from uuid import UUID, uuid4

from hypothesis import HealthCheck, settings

from redstring.domain.ids import EntityId, TenantId

#: Examples per property; lower it (say to 5) for quick runs.
MAX_EXAMPLES = int(os.environ.get("REDSTRING_COMPLIANCE_MAX_EXAMPLES", "25"))

property_settings = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    # Every adapter's subclass runs the same property methods: several executors by design.
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.differing_executors,
    ],
)


def fresh_tenant() -> TenantId:
    """A tenant id no other test uses."""
    return TenantId(uuid4())


def fixed_id(n: int) -> EntityId:
    """An entity id whose string order is its number's order (for tie-break tests)."""
    return EntityId(UUID(f"00000000-0000-4000-8000-{n:012x}"))
