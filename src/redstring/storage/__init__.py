"""Database plumbing shared by the persistent adapters of every family.

Connections and pools, one transaction helper per backend, schema versions,
and the translation of driver errors into `StoreError`s. It knows tables only
as the SQL an adapter hands it, never entities or vectors.
"""
