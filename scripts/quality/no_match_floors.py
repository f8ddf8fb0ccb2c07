"""The CI floors of "nothing matches": the holdout figures at `FLOOR_THRESHOLD`, recorded.

`write_floors()` replays the holdout half (`no_match_replay.replay`) with no
threshold and at `FLOOR_THRESHOLD`, and records both in `NO_MATCH_FLOORS`;
`tests/quality/test_no_match_floors.py` holds every side and mode to them
without the model:

    uv run python -m scripts.fit_confidence --floors
"""

from __future__ import annotations

import json
from typing import Any

from redstring.domain.confidence import SUGGESTED_MIN_CONFIDENCE

from .common import DATA_DIR
from .no_match_replay import replay

NO_MATCH_FLOORS = DATA_DIR / "no_match_floors.json"
#: The threshold the floors are recorded at: the one ADR 0170 suggests to callers.
FLOOR_THRESHOLD = SUGGESTED_MIN_CONFIDENCE


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def write_floors() -> dict[str, Any]:
    """Replay without and with the threshold, write both, and return what was written."""
    payload = {
        "min_confidence": FLOOR_THRESHOLD,
        "without": _rounded(replay(None)),
        "with": _rounded(replay(FLOOR_THRESHOLD)),
    }
    NO_MATCH_FLOORS.write_text(
        json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    return payload


def load_floors() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(NO_MATCH_FLOORS.read_text(encoding="utf-8"))
    return loaded
