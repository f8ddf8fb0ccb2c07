"""A damaged stored row, as a scan of a database reports it (`redstring check`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class DamagedRow(BaseModel):
    """One row of a database that does not hold what redstring wrote.

    `table` and `tenant` (the tenant's id) place it; `row` names it (an id,
    or the key of a packed row such as a term's postings block); `problem`
    says what is wrong. The same four fields as `DamagedRowError`.
    """

    model_config = ConfigDict(frozen=True)

    table: str
    tenant: str
    row: str
    problem: str

    def __str__(self) -> str:
        return f"{self.table}: tenant {self.tenant}, {self.row}: {self.problem}"
