"""What every event log computes alike: `read`'s argument checks, the lagging tenants."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from uuid import UUID

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import TenantId


def check_read_bounds(after: int, limit: int | None) -> None:
    """Raise `InvalidArgumentError` for a negative `after` or `limit`."""
    if after < 0:
        raise InvalidArgumentError(
            name="after",
            value=after,
            requirement="zero or more",
            message=f"after must be zero or more, got {after}",
        )
    if limit is not None and limit < 0:
        raise InvalidArgumentError(
            name="limit",
            value=limit,
            requirement="zero or more",
            message=f"limit must be zero or more, got {limit}",
        )


def lagging(
    lasts: Iterable[tuple[object, int]],
    positions: Iterable[tuple[object, str, int]],
    projections: Sequence[str],
) -> list[TenantId]:
    """The tenants whose last sequence is beyond some projection's position, by id string.

    `lasts` holds `(tenant, last sequence)`, `positions` `(tenant, projection,
    sequence)`; a projection with no position is at 0. Tenants come as a UUID
    or its text (the adapters' keys).
    """
    at = {(str(tenant), name): sequence for tenant, name, sequence in positions}
    behind = {
        str(tenant)
        for tenant, last in lasts
        if any(at.get((str(tenant), name), 0) < last for name in projections)
    }
    return [TenantId(UUID(tenant)) for tenant in sorted(behind)]
