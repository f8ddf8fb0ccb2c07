"""Which names a filter gives that a tenant does not hold, and the held names closest to them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.held_names import unheld_names
from redstring.domain.normalization import normalize_name

SOURCES = ["docs/a.md", "docs/b.md", "notes/meeting-2024.md"]


def test_a_source_given_without_its_folder_is_named_with_the_held_id_it_ends() -> None:
    found = unheld_names(["a.md"], SOURCES)
    assert found is not None
    assert found.names == ("a.md",)
    assert found.closest == ("docs/a.md",)


def test_the_tail_of_a_deep_id_is_close_though_it_reads_little_like_it() -> None:
    held = ["projects/2024/quarterly/reports/summary.md", "summer.md"]
    found = unheld_names(["summary.md"], held)
    assert found is not None
    assert "projects/2024/quarterly/reports/summary.md" in found.closest


def test_every_held_name_given_leaves_nothing_to_say() -> None:
    assert unheld_names(["docs/b.md", "docs/a.md"], SOURCES) is None
    assert unheld_names([], SOURCES) is None


def test_only_the_names_not_held_are_named_in_the_order_given_each_once() -> None:
    found = unheld_names(["zz.md", "docs/a.md", "b.md", "zz.md"], SOURCES)
    assert found is not None
    assert found.names == ("zz.md", "b.md")
    assert found.closest == ("docs/b.md",)


def test_a_name_close_to_nothing_has_no_closest() -> None:
    found = unheld_names(["quantum chromodynamics"], SOURCES)
    assert found is not None
    assert (found.names, found.closest) == (("quantum chromodynamics",), ())


def test_types_compare_in_their_folded_form_and_a_misspelling_finds_the_type() -> None:
    held = ["organisation", "person", "place"]
    assert unheld_names(["Person", " PLACE "], held, fold=normalize_name) is None
    found = unheld_names(["Persn"], held, fold=normalize_name)
    assert found is not None
    assert (found.names, found.closest) == (("Persn",), ("person",))


@given(
    st.lists(st.text(max_size=8), max_size=6),
    st.lists(st.text(max_size=8), max_size=6),
)
def test_the_names_are_exactly_those_not_held_and_the_closest_are_held(
    given_names: list[str], held: list[str]
) -> None:
    found = unheld_names(given_names, held)
    missing = list(dict.fromkeys(name for name in given_names if name not in set(held)))
    if not missing:
        assert found is None
        return
    assert found is not None
    assert list(found.names) == missing
    assert set(found.closest) <= set(held)
    assert list(found.closest) == sorted(set(found.closest))
