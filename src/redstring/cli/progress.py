"""A progress bar on stderr, drawn by tqdm: done/total, rate and time left (ADR 0162).

On a terminal the bar is redrawn in place; into a file or pipe tqdm writes
its redraws separated by carriage returns, and the last one, written when
the bar closes, is the final count. A count is redrawn only when it moved,
and no more often than tqdm's `mininterval`; a new detail (the step a build
waits on) is drawn at once.
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
        self._detail = ""

    def update(self, done: int, total: int, detail: str = "") -> None:
        """Show that `done` of `total` units are finished, and `detail` (the step under way).

        A count is redrawn only when it moved, at most once per tqdm's
        `mininterval` (its own `update` decides), so a count reported again or
        faster than that writes nothing to a log or a pipe; the last count is
        drawn when the bar closes (`finish`). A new `detail` is drawn at once:
        it says what a slow step (a model's answer) is waiting on.
        """
        if not self._enabled:
            return
        bar = self._bar
        if bar is None:  # drawn at once, at the first count
            self._bar = tqdm(
                total=total,
                initial=done,
                desc=self._label,
                unit=self._unit,
                file=self._stream,
                ncols=100,
                leave=True,
                postfix=detail or None,
            )
            self._detail = detail
            return
        bar.total = total
        news = bool(detail) and detail != self._detail
        if news:
            bar.set_postfix_str(detail, refresh=False)
            self._detail = detail
        drawn = bar.update(done - bar.n) if done != bar.n else False
        if news and not drawn:
            bar.refresh()

    def finish(self) -> None:
        """Close the bar (its final state stays on its own line)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
