"""Tools for proving that every statement of the PostgreSQL adapters stays in one tenant.

`partitioned` rewrites a migration so that each table with a `tenant_id`
column is hash-partitioned on it; `StatementLog` records the statements a
test issues; `partitions_touched` asks the server's planner (`EXPLAIN`) which
partitions one statement reads or writes.

An `INSERT ... VALUES` of one row names no partition in its plan (the row is
routed when it executes), so for those the proof is the statement's shape:
`tenant_id` is an inserted column bound to one parameter, and one execution
inserts one row, so it lands in exactly one partition.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql

PARTITIONS = 4

_CREATE_TABLE = re.compile(r"^CREATE TABLE \{schema\}\.(\w+) \(")
_INSERT = re.compile(
    r"^\s*INSERT INTO [\w\".]+\.\"?(\w+)\"? \(([^)]*)\)\s+VALUES\s*\(([^)]*)\)", re.I
)
_DML = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b", re.I)


def partitioned(statements: Sequence[str]) -> list[str]:
    """`statements` with each `CREATE TABLE` holding `tenant_id` partitioned by hash on it."""
    result: list[str] = []
    for statement in statements:
        match = _CREATE_TABLE.match(statement)
        if match is None or "tenant_id" not in statement:
            result.append(statement)
            continue
        table = match.group(1)
        result.append(f"{statement} PARTITION BY HASH (tenant_id)")
        result.extend(
            f"CREATE TABLE {{schema}}.{table}_p{remainder} PARTITION OF {{schema}}.{table}"
            f" FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {remainder})"
            for remainder in range(PARTITIONS)
        )
    return result


#: How many executions of one statement are kept to be explained.
SAMPLES = 3


@dataclass
class StatementLog:
    """The distinct statements seen (as SQL text) and the parameters of a few executions."""

    seen: dict[str, list[Any]] = field(default_factory=dict)

    def record(self, text: str, parameters: Any) -> None:
        if _DML.match(text):
            samples = self.seen.setdefault(text, [])
            if len(samples) < SAMPLES:
                samples.append(parameters)


def as_text(query: Any, connection: Any) -> str:
    """The SQL text of a psycopg query (a string or a composed `sql` object)."""
    if isinstance(query, sql.Composable):
        return query.as_string(connection)
    if isinstance(query, bytes):
        return query.decode()
    return str(query)


@dataclass(frozen=True)
class Touched:
    """What one statement touches: partitioned tables named, and partitions per table."""

    tables: frozenset[str]
    partitions: dict[str, frozenset[str]]
    routed_insert: bool = False


def partition_parents(connection: psycopg.Connection[Any], schema: str) -> dict[str, str]:
    """Each partition of `schema`, mapped to the partitioned table it belongs to."""
    rows = connection.execute(
        "SELECT child.relname, parent.relname FROM pg_inherits i"
        " JOIN pg_class child ON child.oid = i.inhrelid"
        " JOIN pg_class parent ON parent.oid = i.inhparent"
        " JOIN pg_namespace n ON n.oid = parent.relnamespace"
        " WHERE n.nspname = %s AND child.relkind IN ('r', 'p')",
        (schema,),
    ).fetchall()
    return {child: parent for child, parent in rows}


def partitions_touched(
    connection: psycopg.Connection[Any], text: str, parameters: Any, parents: dict[str, str]
) -> Touched:
    """Ask the planner which partitions `text` touches with `parameters` bound."""
    tables = frozenset(p for p in set(parents.values()) if re.search(rf"\b{p}\b", text))
    insert = _INSERT.match(text)
    if insert is not None and insert.group(1) in tables:
        columns = [c.strip() for c in insert.group(2).split(",")]
        values = [v.strip() for v in insert.group(3).split(",")]
        routed = "tenant_id" in columns and values[columns.index("tenant_id")].startswith("%s")
        return Touched(tables=tables, partitions={}, routed_insert=routed)
    with connection.transaction(force_rollback=True):
        [[plan]] = connection.execute(f"EXPLAIN (FORMAT JSON) {text}", parameters).fetchall()
    found: dict[str, set[str]] = {table: set() for table in tables}
    for relation in _relations(plan[0]["Plan"]):
        parent = parents.get(relation)
        if parent is not None:
            found.setdefault(parent, set()).add(relation)
    return Touched(
        tables=tables, partitions={table: frozenset(names) for table, names in found.items()}
    )


def _relations(node: dict[str, Any]) -> Iterator[str]:
    if "Relation Name" in node:
        yield str(node["Relation Name"])
    for child in node.get("Plans", ()):
        yield from _relations(child)


def spread_failures(plans: Sequence[Touched]) -> list[str]:
    """Each table of which one of `plans` touches more than one partition (empty if none)."""
    return [
        f"{table}: {len(names)} partitions ({', '.join(sorted(names))})"
        for plan in plans
        for table, names in sorted(plan.partitions.items())
        if len(names) > 1
    ]


def confined(plans: Sequence[Touched]) -> bool:
    """Whether `plans` prove their statement confined: a routed insert, or a plan on one partition.

    A plan that touches no partition at all (an empty id list folded to false
    by the planner) proves nothing on its own.
    """
    return any(plan.routed_insert for plan in plans) or any(
        len(names) == 1 for plan in plans for names in plan.partitions.values()
    )


def shape(text: str, schema: str) -> str:
    """`text` with its schema name replaced by `{schema}`, to compare statements across tests."""
    return text.replace(f'"{schema}"', "{schema}").replace(schema, "{schema}")
