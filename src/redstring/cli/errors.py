"""The errors the command line raises: the client's (re-exported for the CLI's modules)."""

from __future__ import annotations

from redstring.client.errors import EMBEDDINGS_FLAGS
from redstring.domain.errors import (
    ChunkStoreUnavailableError,
    DatabaseNotFoundError,
    DocumentPathError,
    MissingSettingError,
    NoDocumentsError,
)

__all__ = [
    "EMBEDDINGS_FLAGS",
    "ChunkStoreUnavailableError",
    "DatabaseNotFoundError",
    "DocumentPathError",
    "MissingSettingError",
    "NoDocumentsError",
]
