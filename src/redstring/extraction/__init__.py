"""Extraction: turning documents into entities and relationships with a language model.

Extraction reads documents and asks a model; it writes no store. Its output is
the material of the events the write path appends (ADR 0030).
"""
