"""Every error redstring raises on purpose, in one tree of families a caller acts on.

Catch `RedstringError` for all of them, or a family for one kind of failure:
`InvalidArgumentError`, `NotFoundError`, `StoreUnavailableError`,
`IncompatibleStoreError`, `DamagedStoreError` (all three under `StoreError`),
`ModelError` (with `ModelServerError` and `CompletionError`), `BuildError`,
`InvalidUseError` and `MissingExtraError`. The whole tree, drawn from the
classes, is on the errors reference page (docs/reference/errors.md).
Errors are defined in the domain layer (`redstring.domain.errors`, whose
`__all__` is the one list) so every layer can raise them; import them from
here. `RedstringError` is also at the root.
"""

from __future__ import annotations

from redstring.domain import errors as _errors
from redstring.domain.errors import *  # noqa: F403 - the namespace is the domain's one list

__all__: list[str] = []
__all__ += _errors.__all__
