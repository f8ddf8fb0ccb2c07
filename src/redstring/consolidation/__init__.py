"""Consolidation: finding entities that name the same thing and merging them, as events.

Consolidation reads the graph store and emits `EntitiesMerged` events; it
writes no store itself (ADR 0032). How it decides is in ADR 0033.
"""
