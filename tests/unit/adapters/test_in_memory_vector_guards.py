"""The in-memory vector store's own guards, beyond the shared vector suite."""

from __future__ import annotations

import pytest

from redstring.domain.errors import InvalidArgumentError
from redstring.stores import InMemoryVectorStore
from redstring.testing._support import fixed_id, fresh_tenant


def test_a_dimension_below_one_is_refused() -> None:
    for dimension in (0, -3):
        with pytest.raises(InvalidArgumentError, match="dimension"):
            InMemoryVectorStore(dimension=dimension)


@pytest.mark.asyncio
async def test_deleting_from_a_tenant_never_written_is_a_no_op() -> None:
    store, tenant = InMemoryVectorStore(dimension=2), fresh_tenant()
    await store.delete([fixed_id(1)], tenant)
    assert await store.count(tenant) == 0
    assert await store.get([fixed_id(1)], tenant) == []
