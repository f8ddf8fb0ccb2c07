"""Model answers kept per tenant, so a rerun need not ask the model again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from redstring.domain.ids import TenantId

JsonObject = dict[str, Any]


@runtime_checkable
class AnswerMemory(Protocol):
    """JSON objects kept under a key naming what decided them (model, prompt, schema).

    A key's value is replaced by remembering it again; tenants never see each
    other's keys. Values are copied on the way in and out.
    """

    async def recall(self, tenant_id: TenantId, keys: Sequence[str]) -> dict[str, JsonObject]:
        """The values held for `keys` in `tenant_id`; a key never remembered is absent."""
        ...

    async def remember(self, tenant_id: TenantId, key: str, value: JsonObject) -> None:
        """Keep `value` under `key` in `tenant_id`, replacing what was held."""
        ...
