"""Lexical passage search reads words as a reader does: whole words in scripts with vowel
signs, a hyphenated identifier holding a digit as one term, and marks on decomposed text."""

from __future__ import annotations

from redstring.client.sync import Redstring
from redstring.domain.document import SourceDocument

FILLER = "the cluster runs many services and each service writes logs for operators. " * 3


def _ranked(rs: Redstring, query: str) -> list[str]:
    return [hit.source_id for hit in rs.passages(query, k=5, mode="lexical")]


def test_a_word_with_vowel_signs_finds_only_the_passages_holding_it() -> None:
    with Redstring(":memory:", embeddings="none") as rs:
        rs.index(
            [
                SourceDocument(id="book.md", text="मैं हर दिन एक किताब पढ़ता हूँ।"),
                SourceDocument(id="pigeon.md", text="कबूतर तालाब के पास बैठा है।"),
                SourceDocument(id="tamil.md", text="தமிழ் மொழி"),
                SourceDocument(id="tamil2.md", text="தம்பி ழகரம்"),
            ]
        )
        assert _ranked(rs, "किताब") == ["book.md"]
        assert _ranked(rs, "தமிழ்") == ["tamil.md"]


def test_a_hyphenated_identifier_with_a_digit_is_found_whole_first() -> None:
    apart = "x86 hosts and 64 cores: an x86 node has 64 threads, x86 and 64 again. "
    with Redstring(":memory:", embeddings="none") as rs:
        rs.index(
            [
                SourceDocument(id="whole.md", text=f"{FILLER}Build for x86-64 only. {FILLER}"),
                SourceDocument(id="apart.md", text=f"{FILLER}{apart}{FILLER}"),
                *(SourceDocument(id=f"f{n}.md", text=f"{FILLER}note {n}") for n in range(6)),
            ]
        )
        assert _ranked(rs, "x86-64")[:2] == ["whole.md", "apart.md"]
        assert _ranked(rs, "X86_64")[:2] == ["whole.md", "apart.md"]


def test_a_passage_stored_decomposed_is_marked_as_the_composed_one_is() -> None:
    with Redstring(":memory:", embeddings="none") as rs:
        rs.index(
            [
                SourceDocument(id="nfd.md", text="The cafe\u0301 serves e\u0301tude pieces."),
                SourceDocument(id="nfc.md", text="The caf\u00e9 serves \u00e9tude pieces."),
            ]
        )
        answer = rs.passages("café étude")
    printed = str(answer)
    assert "The **cafe\u0301** serves **e\u0301tude** pieces." in printed
    assert "The **caf\u00e9** serves **\u00e9tude** pieces." in printed
