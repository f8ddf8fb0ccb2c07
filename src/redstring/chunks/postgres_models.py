"""Which embedding models made a tenant's passage vectors in the PostgreSQL chunk store."""

from __future__ import annotations

from collections.abc import Collection

from redstring.domain.ids import TenantId
from redstring.storage.postgres import Connection, PostgresDatabase


async def embedding_models(
    database: PostgresDatabase, tenant_id: TenantId, *, store: str
) -> dict[str | None, int]:
    """How many of `tenant_id`'s rows holding a vector each model made."""
    statement = database.sql(
        "SELECT body->>'embedding_model', COUNT(*) FROM {schema}.chunk_rows"
        " WHERE tenant_id = %s AND embedding IS NOT NULL GROUP BY 1"
    )

    async def work(connection: Connection) -> dict[str | None, int]:
        cursor = await connection.execute(statement, (tenant_id,))
        return {model: int(n) for model, n in await cursor.fetchall()}

    return await database.read(work, store=store)


async def embeds_with(
    database: PostgresDatabase, tenant_id: TenantId, models: Collection[str | None], *, store: str
) -> bool:
    """Whether a row of `tenant_id` holding a vector names one of `models` (`None`: none)."""
    named = sorted(model for model in models if model is not None)
    statement = database.sql(
        "SELECT EXISTS (SELECT 1 FROM {schema}.chunk_rows"
        " WHERE tenant_id = %s AND embedding IS NOT NULL AND (body->>'embedding_model' = ANY(%s)"
        " OR (%s AND body->>'embedding_model' IS NULL)))"
    )

    async def work(connection: Connection) -> bool:
        cursor = await connection.execute(statement, (tenant_id, named, None in models))
        row = await cursor.fetchone()
        return bool(row and row[0])

    return await database.read(work, store=store)
