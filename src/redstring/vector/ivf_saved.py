"""A SQLite file's IVF indexes, saved in it and read back instead of trained (ADR 0320).

Needs the `ann` extra (faiss-cpu). Two tables (`SAVED_IVF_SCHEMA`) hold a
tenant's saved index: `vector_ivf` (the generation token it is current at,
the name of its training, the rows trained on and changed since, the
centres as float32) and `vector_ivf_lists` (each entity's list). The index
is trusted only while its token is the tenant's current generation token:

- a search that trains an index saves it, in a write of its own, at the
  token it read the rows under (skipped if a write moved the token since);
- a write through an `"ivf"` store files its rows in the saved lists and
  moves the saved token along, inside the write's own transaction, so a
  rollback or a crash undoes both;
- any other write (an `"exact"` store, an older library) moves only the
  generation token: the saved index is stale from then on, and the next
  search trains again rather than trust it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

import faiss
import numpy as np

from redstring.domain.exact_search import FloatMatrix
from redstring.storage.sqlite import chunked, placeholders
from redstring.storage.tenant_cache import current_generation
from redstring.vector.ivf import RETRAIN_SHARE, IvfIndex, SavedLists
from redstring.vector.rows import TenantRows


@dataclass(frozen=True)
class Snapshot:
    """A trained index as it will be saved, taken at the token its rows were read under."""

    token: str | None
    training: str
    trained: int
    changed: int
    centres: bytes
    filing: list[tuple[str, int]]


class SavedIvf:
    """Reads, saves and keeps up to date the saved IVF indexes of one `SqliteVectorStore`."""

    def __init__(self) -> None:
        #: Trainings known to be in the file (saved or read back here).
        self._written: set[str] = set()
        #: Per tenant, a saved training's centres as a faiss quantizer.
        self._quantizers: dict[str, tuple[str, faiss.IndexFlatIP]] = {}

    def restore(
        self, connection: sqlite3.Connection, tenant: str, token: str | None, part: TenantRows
    ) -> IvfIndex | None:
        """The tenant's saved index over `part` if current at `token`; `None` otherwise.

        Also `None` when the saved lists do not name each of the part's
        entities once, or the index is due to be trained again anyway.
        """
        found = connection.execute(
            "SELECT token, training, trained, changed, centres FROM vector_ivf WHERE tenant_id = ?",
            (tenant,),
        ).fetchone()
        if found is None or token is None or found[0] != token:
            return None
        _, training, trained, changed, blob = found
        if changed > RETRAIN_SHARE * trained:
            return None
        width = 4 * part.rows.shape[1]
        if not isinstance(blob, bytes) or not blob or len(blob) % width:
            return None  # a damaged saved index is derived data: trained again, not an error
        centres = np.frombuffer(blob, dtype=np.float32).reshape(-1, part.rows.shape[1])
        slots: list[int] = []
        lists: list[int] = []
        for entity_id, number in connection.execute(
            "SELECT entity_id, list_no FROM vector_ivf_lists WHERE tenant_id = ?", (tenant,)
        ):
            slot = part.slot(entity_id)
            if slot is None or not 0 <= number < len(centres):
                return None
            slots.append(slot)
            lists.append(number)
        if len(slots) != part.live or len(set(slots)) != len(slots):
            return None
        self._written.add(training)
        saved = SavedLists(
            training=training,
            trained=trained,
            changed=changed,
            centres=centres,
            slots=np.asarray(slots, dtype=np.int64),
            lists=np.asarray(lists, dtype=np.int64),
        )
        return IvfIndex.restore(part, saved)

    def unsaved(self, part: TenantRows, token: str | None) -> Snapshot | None:
        """What to save of the part's index, if it holds one not yet in the file."""
        index = part.index
        if not isinstance(index, IvfIndex) or index.training in self._written:
            return None
        slots, lists = index.filing()
        ids = part.ids
        filing = sorted(zip([ids[s] for s in slots.tolist()], lists.tolist(), strict=True))
        return Snapshot(
            token=token,
            training=index.training,
            trained=index.trained,
            changed=index.changed,
            centres=np.ascontiguousarray(index.centres, dtype=np.float32).tobytes(),
            filing=filing,
        )

    def save(self, connection: sqlite3.Connection, tenant: str, snapshot: Snapshot) -> None:
        """Write the snapshot as the tenant's saved index, unless a write moved the token."""
        token = current_generation(connection, "vector_generations", tenant)
        if token is None or token != snapshot.token:
            return
        connection.execute("DELETE FROM vector_ivf_lists WHERE tenant_id = ?", (tenant,))
        connection.executemany(
            "INSERT INTO vector_ivf_lists (tenant_id, entity_id, list_no) VALUES (?, ?, ?)",
            [(tenant, entity_id, number) for entity_id, number in snapshot.filing],
        )
        connection.execute(
            "INSERT INTO vector_ivf (tenant_id, token, training, trained, changed, centres)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id) DO UPDATE SET"
            " token = excluded.token, training = excluded.training,"
            " trained = excluded.trained, changed = excluded.changed,"
            " centres = excluded.centres",
            (
                tenant,
                token,
                snapshot.training,
                snapshot.trained,
                snapshot.changed,
                snapshot.centres,
            ),
        )
        self._written.add(snapshot.training)

    def follow_put(
        self,
        connection: sqlite3.Connection,
        tenant: str,
        tokens: tuple[str | None, str],
        *,
        ids: Sequence[str],
        unit: FloatMatrix,
        part: TenantRows | None,
    ) -> None:
        """File rows `unit` of distinct `ids`, written in this transaction, in the saved lists.

        `tokens` are the tenant's generation token before and after the
        write; `part` the cached rows the write patched, if any. Nothing is
        done unless the saved index was current before the write.
        """
        current = self._current(connection, tenant, tokens[0])
        if current is None or not ids:
            return
        index = None if part is None else part.index
        if part is not None and isinstance(index, IvfIndex) and index.training == current:
            lists = index.lists_of(np.asarray([part.slot(i) for i in ids], dtype=np.int64))
        else:
            quantizer = self._quantizer(connection, tenant, current, unit.shape[1])
            lists = quantizer.assign(unit, 1)[:, 0]
        connection.executemany(
            "INSERT INTO vector_ivf_lists (tenant_id, entity_id, list_no) VALUES (?, ?, ?)"
            " ON CONFLICT (tenant_id, entity_id) DO UPDATE SET list_no = excluded.list_no",
            [
                (tenant, entity_id, int(number))
                for entity_id, number in zip(ids, lists, strict=True)
            ],
        )
        self._advance(connection, tenant, tokens[1], len(ids))

    def follow_delete(
        self,
        connection: sqlite3.Connection,
        tenant: str,
        tokens: tuple[str | None, str],
        ids: Sequence[str],
        removed: int,
    ) -> None:
        """Take deleted `ids` (`removed` of which were held) out of the saved lists."""
        if self._current(connection, tenant, tokens[0]) is None:
            return
        for part in chunked(ids):
            connection.execute(
                "DELETE FROM vector_ivf_lists WHERE tenant_id = ?"
                f" AND entity_id IN ({placeholders(len(part))})",
                (tenant, *part),
            )
        self._advance(connection, tenant, tokens[1], removed)

    def _current(
        self, connection: sqlite3.Connection, tenant: str, token: str | None
    ) -> str | None:
        """The saved training's name if the saved index is current at `token`."""
        found = connection.execute(
            "SELECT token, training FROM vector_ivf WHERE tenant_id = ?", (tenant,)
        ).fetchone()
        if found is None or token is None or found[0] != token:
            return None
        return str(found[1])

    def _advance(
        self, connection: sqlite3.Connection, tenant: str, token: str, changed: int
    ) -> None:
        connection.execute(
            "UPDATE vector_ivf SET token = ?, changed = changed + ? WHERE tenant_id = ?",
            (token, changed, tenant),
        )

    def _quantizer(
        self, connection: sqlite3.Connection, tenant: str, training: str, dimension: int
    ) -> faiss.IndexFlatIP:
        """The saved training's centres as a quantizer, read once per training."""
        held = self._quantizers.get(tenant)
        if held is not None and held[0] == training:
            return held[1]
        (blob,) = connection.execute(
            "SELECT centres FROM vector_ivf WHERE tenant_id = ?", (tenant,)
        ).fetchone()
        centres = np.frombuffer(blob, dtype=np.float32).reshape(-1, dimension)
        quantizer = faiss.IndexFlatIP(dimension)
        quantizer.add(np.ascontiguousarray(centres))
        self._quantizers[tenant] = (training, quantizer)
        return quantizer
