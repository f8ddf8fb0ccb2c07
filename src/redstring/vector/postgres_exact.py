"""Exact search in PostgreSQL: a float16 pool re-scored from float32, proved complete (ADR 0270).

The scan reads each row's float16 unit vector (`unit_half`, kept in the row)
and pools the best `pool_size(k)`; the pool is re-scored with the float32
expression exact search always used (ADR 0190), so scores and ties are
unchanged. When the float16 error bound cannot rule out every row left
outside the pool, a full scan re-scores every row the bound cannot exclude.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pgvector import HalfVector

from redstring.domain.half_precision import half_precision_error, pool_size, rescan_ceiling
from redstring.storage.postgres import Connection, PostgresDatabase

#: Cosine distance of a row to the unit query `%(q)s`: `<#>` is the negated inner
#: product, scaled by the row's stored inverse norm (ADR 0190).
DISTANCE = "(1.0 + (embedding <#> %(q)s) * inverse_norm)"
#: The float16 cosine distance of the row's unit vector to the float16 query.
_APPROXIMATE = "(1.0 + (unit_half <#> %(half)s))"
#: Whether a distance reaches `min_score` on the 0..1 match scale.
KEEP = "greatest(0.0, least(1.0, 1.0 - {distance} / 2.0)) >= %(min_score)s"

#: The pool by float16 distance, then each pooled row's exact distance by its key.
_POOL = (
    "SELECT v.entity_id, v.entity_type, {distance} AS distance, pool.approximate, {keep}"
    f" FROM (SELECT entity_id, {_APPROXIMATE} AS approximate FROM {{{{schema}}}}.vector_records"
    " WHERE {passing} ORDER BY approximate LIMIT %(pool)s) AS pool"
    " JOIN {{schema}}.vector_records AS v"
    " ON v.tenant_id = %(tenant)s AND v.entity_id = pool.entity_id"
)
#: The full scan: every row within the float16 cut, ranked by its exact distance.
_RESCAN = (
    "SELECT entity_id, entity_type, {distance} AS distance FROM {{schema}}.vector_records"
    f" WHERE {{where}} AND {_APPROXIMATE} <= %(ceiling)s"
    " ORDER BY distance, entity_id LIMIT %(k)s"
)


async def rank_exactly(
    database: PostgresDatabase,
    connection: Connection,
    *,
    passing: str,
    parameters: dict[str, object],
    k: int,
    min_score: float | None,
    dimension: int,
) -> list[tuple[Any, ...]]:
    """`(entity_id, entity_type, distance)` of the exact top `k` rows passing `passing`.

    `parameters` holds `q` (the float32 unit query), `tenant` and what
    `passing` names; `min_score` is applied to the exact distance, before `k`.
    """
    query = np.asarray(parameters["q"], dtype=np.float32)
    bound: dict[str, object] = {**parameters, "half": HalfVector(query), "pool": pool_size(k)}
    keep = "true"
    where = passing
    if min_score is not None:
        keep = KEEP.format(distance=DISTANCE)
        where = f"{passing} AND {keep}"
        bound["min_score"] = min_score
    pool = database.sql(_POOL.format(distance=DISTANCE, keep=keep, passing=passing))
    cursor = await connection.execute(pool, bound)
    pooled = [tuple(row) for row in await cursor.fetchall()]
    kept = sorted((row for row in pooled if row[4]), key=lambda row: (row[2], str(row[0])))
    ceiling = rescan_ceiling(
        pool_full=len(pooled) == pool_size(k),
        last_approximate=max((float(row[3]) for row in pooled), default=0.0),
        kept=[float(row[2]) for row in kept],
        k=k,
        min_score=min_score,
        error=half_precision_error(dimension),
    )
    if ceiling is None:
        return [row[:3] for row in kept[:k]]
    rescan = database.sql(_RESCAN.format(distance=DISTANCE, where=where))
    cursor = await connection.execute(rescan, {**bound, "ceiling": ceiling, "k": k})
    return [tuple(row) for row in await cursor.fetchall()]
