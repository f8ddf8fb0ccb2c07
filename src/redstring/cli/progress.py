"""A progress bar on stderr, drawn by tqdm: done/total, rate and time left (ADR 0162).

On a terminal the bar is redrawn in place; into a file or pipe tqdm writes
its redraws separated by carriage returns, and the last one, written when
the bar closes, is the final count.
"""

from __future__ import annotations

from typing import Never, TextIO

from tqdm import tqdm


class ProgressBar:
    """Reports `label: done/total unit [elapsed<left, rate]`; silent when `enabled` is false."""

    def __init__(self, stream: TextIO, label: str, *, unit: str, enabled: bool = True) -> None:
        self._stream = stream
        self._label = label
        self._unit = unit
        self._enabled = enabled
        self._bar: tqdm[Never] | None = None

    def update(self, done: int, total: int, detail: str = "") -> None:
        """Show that `done` of `total` units are finished."""
        if not self._enabled:
            return
        bar = self._bar
        if bar is None:
            bar = tqdm(
                total=total,
                desc=self._label,
                unit=self._unit,
                file=self._stream,
                ncols=100,
                leave=True,
            )
            self._bar = bar
        bar.total = total
        bar.n = done
        if detail:
            bar.set_postfix_str(detail, refresh=False)
        bar.refresh()

    def finish(self) -> None:
        """Close the bar (its final state stays on its own line)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
