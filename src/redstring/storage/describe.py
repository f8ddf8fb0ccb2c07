"""How a store prints: its class, where it lives and its dimension, never its rows or vectors."""

from __future__ import annotations


class DescribedStore:
    """Gives a store adapter a short `repr`, e.g. `<SqliteChunkStore 'demo.db' dimension=384>`.

    Reads only what every adapter exposes: the SQLite file path (or the
    PostgreSQL schema, never the URL with its credentials) of its `_db`,
    and its `dimension` when it has one.
    """

    def __repr__(self) -> str:
        parts = [type(self).__name__]
        database = getattr(self, "_db", None)
        path = getattr(database, "path", None)
        schema = getattr(database, "schema", None)
        if path is not None:
            parts.append(repr(str(path)))
        elif isinstance(schema, str):
            parts.append(f"schema={schema}")
        dimension = getattr(self, "dimension", None)
        if isinstance(dimension, int):
            parts.append(f"dimension={dimension}")
        return "<" + " ".join(parts) + ">"
