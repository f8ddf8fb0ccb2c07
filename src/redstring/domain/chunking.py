"""Splitting text into overlapping windows that map back onto the source exactly.

A NUL (`"\\x00"`) in the text is read as a space (ADR 0685): no passage holds
one, so every chunk store, PostgreSQL's included, stores the same passages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from redstring.domain.chunk import TextSpan
from redstring.domain.errors import InvalidArgumentError

_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"[.!?。！？][\"')\]]*\s+")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class SlidingWindowChunker:
    """Windows of at most `size` characters, each overlapping the last by about `overlap`.

    A window ends at the last paragraph break inside it if there is one in its
    second half, else at the last sentence end, else at the last whitespace,
    else at `size`. Leading and trailing whitespace is trimmed from each span,
    and every span satisfies `span.text == text[span.start:span.end]`, with
    each NUL of `text` read as a space: a stray NUL (a C string's terminator,
    a byte of a binary format) is whitespace, so no span holds one and the
    offsets still index `text` as given.
    Raises `InvalidArgumentError` unless `size > 0` and `0 <= overlap < size`.
    """

    size: int = 1000
    overlap: int = 150

    def __post_init__(self) -> None:
        if self.size <= 0:
            raise InvalidArgumentError(
                name="size",
                value=self.size,
                requirement="positive",
                message=f"chunk size must be positive, got {self.size}",
            )
        if not 0 <= self.overlap < self.size:
            raise InvalidArgumentError(
                name="overlap",
                value=self.overlap,
                requirement=f"at least 0 and less than the size ({self.size})",
                message=f"chunk overlap must be at least 0 and less than the size ({self.size}), "
                f"got {self.overlap}",
            )

    def split(self, text: str) -> list[TextSpan]:
        """The spans of `text`, in order; `[]` for a blank text (or one of NULs and space)."""
        text = readable_text(text)
        spans: list[TextSpan] = []
        start = _skip_space(text, 0)
        while start < len(text):
            end = self._window_end(text, start)
            spans.append(_trimmed(text, start, end))
            if end >= len(text):
                break
            start = _skip_space(text, max(end - self.overlap, start + 1))
            start = self._align_to_word(text, start, end)
        return spans

    def _window_end(self, text: str, start: int) -> int:
        limit = start + self.size
        if limit >= len(text):
            return len(text)
        window = text[start:limit]
        floor = len(window) // 2
        for pattern in (_PARAGRAPH, _SENTENCE, _SPACE):
            cut = _last_match_end(pattern, window, floor)
            if cut is not None:
                return start + cut
        return limit

    @staticmethod
    def _align_to_word(text: str, start: int, previous_end: int) -> int:
        """Move a mid-word start forward to the next word, if that stays before `previous_end`."""
        if start == 0 or text[start - 1].isspace():
            return start
        match = _SPACE.search(text, start, previous_end)
        return _skip_space(text, match.end()) if match else start


def readable_text(text: str) -> str:
    """`text` with each NUL read as a space: the same length, so offsets into it index
    the text as given, and a text no store refuses (PostgreSQL's text holds no NUL)."""
    return text.replace("\x00", " ")


def _last_match_end(pattern: re.Pattern[str], window: str, floor: int) -> int | None:
    cut = None
    for match in pattern.finditer(window):
        if match.end() > floor:
            cut = match.end()
    return cut


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _trimmed(text: str, start: int, end: int) -> TextSpan:
    """`text[start:end]` without its surrounding space; `start` is never at a space and
    `end > start`, so the span is never empty."""
    piece = text[start:end]
    stripped = piece.strip()
    left = start + (len(piece) - len(piece.lstrip()))
    return TextSpan(start=left, end=left + len(stripped), text=stripped)
