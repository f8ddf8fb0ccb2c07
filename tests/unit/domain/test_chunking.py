"""Documents, stored chunks and the sliding-window chunker."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.chunk import StoredChunk, TextSpan, chunk_id_for
from redstring.domain.chunking import SlidingWindowChunker
from redstring.domain.document import SourceDocument
from tests.factories import DEFAULT_TENANT

TEXT = (
    "Ada Lovelace was an English mathematician. She worked on Babbage's Analytical "
    "Engine! Her notes include an algorithm.\n\nCharles Babbage designed the Difference "
    "Engine. He is called the father of the computer."
)


def test_every_span_maps_back_onto_the_source_exactly() -> None:
    spans = SlidingWindowChunker(size=80, overlap=20).split(TEXT)
    assert len(spans) > 1
    assert all(TEXT[s.start : s.end] == s.text for s in spans)


def test_windows_prefer_sentence_ends() -> None:
    spans = SlidingWindowChunker(size=80, overlap=20).split(TEXT)
    assert spans[0].text == "Ada Lovelace was an English mathematician."


def test_a_paragraph_break_is_preferred_over_a_sentence_end() -> None:
    text = "First sentence here. Second one.\n\nThird paragraph starts here and runs on."
    [first, *_] = SlidingWindowChunker(size=45, overlap=0).split(text)
    assert first.text == "First sentence here. Second one."


def test_a_text_shorter_than_the_window_is_one_chunk_and_blank_is_none() -> None:
    assert [s.text for s in SlidingWindowChunker(size=1000).split("  short text ")] == [
        "short text"
    ]
    assert SlidingWindowChunker().split(" \n\t ") == []


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (-5, 0), (10, 10), (10, -1), (10, 50)])
def test_bad_sizes_are_refused(size: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="chunk"):
        SlidingWindowChunker(size=size, overlap=overlap)


@given(
    text=st.text(alphabet=st.sampled_from("ab .\n!?"), max_size=400),
    size=st.integers(1, 60),
    overlap_fraction=st.floats(0, 0.9),
)
def test_spans_cover_every_visible_character_in_order(
    text: str, size: int, overlap_fraction: float
) -> None:
    overlap = min(size - 1, int(size * overlap_fraction))
    spans = SlidingWindowChunker(size=size, overlap=overlap).split(text)
    covered = set()
    for span in spans:
        assert text[span.start : span.end] == span.text
        assert 0 < len(span.text) <= size
        covered.update(range(span.start, span.end))
    assert [s.start for s in spans] == sorted(s.start for s in spans)
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_a_chunk_id_is_derived_from_source_and_text() -> None:
    chunk = StoredChunk(
        tenant_id=DEFAULT_TENANT, source_id="doc", text="hello", index=0, start=0, end=5
    )
    assert chunk.id == chunk_id_for("doc", "hello")
    assert chunk_id_for("doc", "hello") != chunk_id_for("doc2", "hello")
    assert chunk_id_for("doc", "hello") != chunk_id_for("doc", "hello!")
    assert chunk.embedding is None


def test_inconsistent_offsets_are_refused() -> None:
    with pytest.raises(ValueError, match="length"):
        TextSpan(start=0, end=3, text="hello")
    with pytest.raises(ValueError, match="before"):
        StoredChunk(tenant_id=DEFAULT_TENANT, source_id="d", text="x", index=0, start=5, end=1)


def test_a_document_needs_an_id() -> None:
    with pytest.raises(ValueError, match="must not be blank"):
        SourceDocument(id=" ", text="x")


def test_consecutive_windows_overlap_and_never_start_mid_word() -> None:
    text = " ".join(f"word{n}" for n in range(200))
    spans = SlidingWindowChunker(size=100, overlap=30).split(text)
    assert len(spans) > 5
    for previous, current in itertools.pairwise(spans):
        assert current.start < previous.end
        assert previous.end - current.start <= 30
        assert text[current.start - 1] == " "


def test_no_overlap_means_windows_abut() -> None:
    text = " ".join(f"word{n}" for n in range(200))
    spans = SlidingWindowChunker(size=100, overlap=0).split(text)
    assert all(b.start >= a.end for a, b in itertools.pairwise(spans))


@given(
    text=st.text(alphabet=st.sampled_from("ab .\n\x00"), max_size=300),
    size=st.integers(1, 60),
    overlap_fraction=st.floats(0, 0.9),
)
def test_a_nul_is_read_as_a_space_so_no_span_holds_one(
    text: str, size: int, overlap_fraction: float
) -> None:
    overlap = min(size - 1, int(size * overlap_fraction))
    chunker = SlidingWindowChunker(size=size, overlap=overlap)
    spans = chunker.split(text)
    assert all("\x00" not in span.text for span in spans)
    assert all(text[s.start : s.end].replace("\x00", " ") == s.text for s in spans)
    assert spans == chunker.split(text.replace("\x00", " "))


def test_a_stray_nul_between_words_separates_them_and_a_text_of_nuls_is_blank() -> None:
    [span] = SlidingWindowChunker().split("\x00Bob\x00Smith wrote.\x00\x00")
    assert (span.start, span.end, span.text) == (1, 17, "Bob Smith wrote.")
    assert SlidingWindowChunker().split("\x00 \x00\n") == []
