"""Chunk-store adapters."""
