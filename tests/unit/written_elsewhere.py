"""The note a database is written with by a model of another dimension (`written_at_64`)."""

from __future__ import annotations

from redstring import SourceDocument

NOTE = SourceDocument(id="ada.md", text="Ada Lovelace wrote the first published program.")
