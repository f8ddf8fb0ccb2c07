"""The fixes the client's `ModeNeedsEmbeddingsError` names, in the caller's terms.

The client's error classes live in `redstring.domain.errors.client` (one tree,
ADR 0140); import them from `redstring.errors`.
"""

from __future__ import annotations

#: How to give the Python client an embedding provider (`ModeNeedsEmbeddingsError.fix`).
EMBEDDINGS_ARGUMENT = (
    'Open the client with embeddings="local" (needs the `local` extra) or an embedding '
    'provider object, or pass mode="lexical".'
)

#: How to give the command line an embedding provider (`ModeNeedsEmbeddingsError.fix`).
EMBEDDINGS_FLAGS = (
    "Pass --embeddings local (needs the `local` extra) or --embeddings openai with its "
    "settings, or use --mode lexical."
)
