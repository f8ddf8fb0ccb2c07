"""A progress line on stderr: rewritten in place on a terminal, one line per step otherwise."""

from __future__ import annotations

from typing import TextIO


class ProgressLine:
    """Reports `label done/total detail`; silent when `enabled` is false."""

    def __init__(self, stream: TextIO, label: str, *, enabled: bool = True) -> None:
        self._stream = stream
        self._label = label
        self._enabled = enabled
        self._interactive = stream.isatty()
        self._open = False

    def update(self, done: int, total: int, detail: str = "") -> None:
        """Show that `done` of `total` steps are finished."""
        if not self._enabled:
            return
        width = 24
        filled = width * done // total if total else width
        bar = "#" * filled + "-" * (width - filled)
        text = f"{self._label} [{bar}] {done}/{total}"
        if detail:
            text += f" {detail}"
        if self._interactive:
            self._stream.write("\r\x1b[2K" + text)
            self._open = True
        else:
            self._stream.write(text + "\n")
        self._stream.flush()

    def finish(self) -> None:
        """End an in-place line so what follows starts on its own line."""
        if self._open:
            self._stream.write("\n")
            self._stream.flush()
            self._open = False
