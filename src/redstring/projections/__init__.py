"""Projections: folding the event log into the graph, vector and chunk stores.

Each projection applies one event at a time with upserts and deletes only, so
applying an event twice changes nothing and replaying a log into empty stores
rebuilds them (ADR 0034).
"""
