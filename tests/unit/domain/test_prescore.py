"""The pre-score that cuts the lexical channel's pool before the full score (ADR 0201)."""

from __future__ import annotations

from uuid import UUID

from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.ids import EntityId
from redstring.domain.prescore import prescore_cut, sorted_tokens
from redstring.domain.query import NormalizedQuery


def numbered(n: int) -> EntityId:
    return EntityId(UUID(int=n))


def cut(query: str, names: dict[EntityId, list[str]], limit: int) -> list[EntityId]:
    return prescore_cut(NormalizedQuery.of(query), names, limit)


def test_sorted_tokens_orders_the_tokens_of_a_form() -> None:
    assert sorted_tokens("smith john") == "john smith"
    assert sorted_tokens("") == ""


def test_the_closest_names_come_first_and_the_cut_keeps_limit() -> None:
    names = {
        numbered(1): ["Jonh Smith Fairweather Consolidated"],
        numbered(2): ["Jane Smyth"],
        numbered(3): ["John Smith"],
    }
    assert cut("Jonh Smithe", names, 3) == [numbered(3), numbered(1), numbered(2)]
    assert cut("Jonh Smithe", names, 1) == [numbered(3)]
    assert cut("Jonh Smithe", names, 0) == []
    assert cut("Jonh Smithe", {}, 5) == []


def test_a_name_holding_every_query_word_comes_before_closer_readings() -> None:
    """ "Meister" reads closer to "Meir" than "Golda Meir" does; only the latter holds it."""
    names = {
        numbered(1): ["Meister Eckhart"],
        numbered(2): ["Limeira"],
        numbered(3): ["Someone Else", "Golda Meir"],  # an alias holds it
        numbered(4): ["Meira"],
    }
    assert cut("Meir", names, 1) == [numbered(3)]
    assert cut("meir", names, 4)[0] == numbered(3)
    # A function word need not be held; a one-letter word must be.
    assert cut("the Meir", names, 1) == [numbered(3)]
    assert NormalizedQuery.of("the Meir").held_by(("golda", "meir"))
    assert not NormalizedQuery.of("G. Meir").held_by(("golda", "meir"))
    assert NormalizedQuery.of("G. Meir").held_by(("meir", "g"))
    assert not NormalizedQuery.of("  ").held_by(())  # a blank query is held by nothing


def test_a_reordered_query_reads_like_the_name() -> None:
    names = {numbered(1): ["Smithson Johnny"], numbered(2): ["John Smith"]}
    assert cut("Smith, John", names, 1) == [numbered(2)]


def test_an_alias_counts_as_much_as_the_name() -> None:
    names = {numbered(1): ["Ada Lovelace"], numbered(2): ["Augusta King", "Adah Lovelace"]}
    assert cut("Adah Lovelace", names, 1) == [numbered(2)]
    assert cut("Ada Lovelace", names, 1) == [numbered(1)]


def test_an_entity_with_no_readable_name_still_takes_its_place_by_id() -> None:
    names = {numbered(2): ["..."], numbered(1): ["!!"], numbered(3): []}
    assert cut("Ada", names, 3) == [numbered(1), numbered(2), numbered(3)]


@given(st.lists(st.integers(1, 1000), min_size=1, max_size=200, unique=True), st.integers(1, 250))
def test_equal_names_are_cut_by_ascending_id_whatever_the_order_given(
    numbers: list[int], limit: int
) -> None:
    """Two names, each held by many ids: each name's ids keep ascending order in the cut."""
    names = {numbered(n): ["Ada Lovelace" if n % 3 else "Ada Lovelock"] for n in numbers}
    closer = sorted(n for n in numbers if n % 3)
    further = sorted(n for n in numbers if not n % 3)
    wanted = [numbered(n) for n in [*closer, *further]][:limit]
    assert cut("Ada Lovelace", names, limit) == wanted
