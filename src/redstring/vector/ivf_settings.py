"""The IVF search's settings and their checks, importable without faiss (ADR 0225, 0265)."""

from __future__ import annotations

from redstring.domain.errors import InvalidArgumentError

#: A tenant (or the rows a type filter leaves) smaller than this is searched
#: exactly; ADR 0191 gives the measurements behind it.
EXACT_BELOW = 50_000
#: Lists (k-means cells) searched per query; ADR 0225 gives the recall behind it.
PROBES = 32


def check_ivf_settings(exact_below: object, probes: object) -> None:
    """Refuse an `exact_below` below 0 or a `probes` below 1 (or either not an int), naming it."""
    if isinstance(exact_below, bool) or not isinstance(exact_below, int) or exact_below < 0:
        raise InvalidArgumentError(
            name="exact_below", value=exact_below, requirement="an int of 0 or more"
        )
    if isinstance(probes, bool) or not isinstance(probes, int) or probes < 1:
        raise InvalidArgumentError(name="probes", value=probes, requirement="an int of 1 or more")
