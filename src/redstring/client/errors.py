"""The fixes the client's `ModeNeedsEmbeddingsError`, `ModelDimensionMismatchError`,
`EmbeddingModelMismatchError` and `DatabaseNotFoundError` name, in the caller's terms:
the client's arguments from Python, the flags from the command line.

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

#: How to open the Python client on a database of another dimension than its model's
#: (`ModelDimensionMismatchError.fix`).
MODEL_DIMENSION_ARGUMENT = (
    "Open the client with the embeddings the database was written with, or with "
    'embeddings="none" for lexical search only; mode="lexical" needs no model.'
)

#: How to give the command line the model a database was written with, or none
#: (`ModelDimensionMismatchError.fix`).
MODEL_DIMENSION_FLAGS = (
    "Pass the --embeddings settings the database was written with, or --embeddings none "
    "for lexical search only."
)

#: How to search passages another embedding model embedded, from Python
#: (`EmbeddingModelMismatchError.fix`).
EMBEDDING_MODEL_ARGUMENT = (
    "Index the documents again with this model (`index` embeds again every passage another "
    "model embedded), or open the client with the embeddings that embedded them; "
    'mode="lexical" needs no model.'
)

#: How to search passages another embedding model embedded, from the command line
#: (`EmbeddingModelMismatchError.fix`).
EMBEDDING_MODEL_FLAGS = (
    "Run `redstring index` on the documents again with these --embeddings settings (it "
    "embeds again every passage another model embedded), or pass the --embeddings settings "
    "that embedded them, or --embeddings none for lexical search only."
)

#: How to search entities another embedding model embedded, from Python
#: (`EmbeddingModelMismatchError.fix`).
ENTITY_MODEL_ARGUMENT = (
    "Build the graph again from its documents with this model (`build` embeds every entity "
    "it extracts; entities of documents not built again keep the other model's vectors), or "
    'open the client with the embeddings that embedded them; mode="lexical" needs no model.'
)

#: How to search entities another embedding model embedded, from the command line
#: (`EmbeddingModelMismatchError.fix`).
ENTITY_MODEL_FLAGS = (
    "Run `redstring build` on the documents again with these --embeddings settings (it "
    "embeds every entity it extracts), or pass the --embeddings settings that embedded "
    "them, or --embeddings none for lexical search only."
)

#: How to name a database to the Python client, or make one (`DatabaseNotFoundError.fix`).
DATABASE_ARGUMENT = (
    "Check `db`, or open the client with `create=True` (the default) to make a new database there."
)


def database_flags(path: str) -> str:
    """How to name a database on the command line, or make one (`DatabaseNotFoundError.fix`)."""
    return (
        f"Check --db, or create one first with `redstring index PATH... --db {path}` or "
        f"`redstring build PATH... --db {path}`."
    )
