"""`best_window`: matches outside the chosen window are neither marked nor shown."""

from __future__ import annotations

from redstring.domain.snippet import best_window


def test_a_match_beyond_the_window_is_left_out() -> None:
    text = "The engine ran all night long in the cold shed, and by morning another engine"
    assert best_window(text, "engine", 24) == "...**engine** ran all night..."


def test_a_match_before_the_window_is_left_out() -> None:
    text = "An engine stood idle while far away Lovelace and Babbage argued about Lovelace"
    shown = best_window(text, "engine Lovelace Babbage", 40)
    assert "**engine**" not in shown
    assert shown.startswith("...")
    assert "**Lovelace** and **Babbage**" in shown
