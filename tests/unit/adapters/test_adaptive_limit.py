"""`AdaptiveLimit` (ADR 0151): company counts recent abandons, the limit halves and grows back."""

from __future__ import annotations

import asyncio

import pytest

from redstring.llm._concurrency import GROW_AFTER, AdaptiveLimit


@pytest.mark.asyncio
async def test_an_abandoned_request_is_company_only_within_the_window() -> None:
    recent = AdaptiveLimit(4, window=3600.0)
    recent.shed()
    async with recent.slot() as company:
        assert company == 1
    passed = AdaptiveLimit(4, window=0.001)
    passed.shed()
    await asyncio.sleep(0.05)  # the clock moves past the window; no duration is asserted
    async with passed.slot() as company:
        assert company == 0


@pytest.mark.asyncio
async def test_the_limit_halves_on_a_shed_and_grows_by_one_after_enough_successes() -> None:
    limit = AdaptiveLimit(4, window=1.0)
    limit.shed()
    assert limit.limit == 2
    for _ in range(GROW_AFTER * 2 - 1):
        limit.succeeded()
    assert limit.limit == 2
    limit.succeeded()
    assert limit.limit == 3
    for _ in range(GROW_AFTER * 3 - 1):  # counted afresh from the last growth
        limit.succeeded()
    assert limit.limit == 3
    limit.succeeded()
    assert limit.limit == 4
    for _ in range(GROW_AFTER * 5):
        limit.succeeded()
    assert limit.limit == 4  # never above the maximum
