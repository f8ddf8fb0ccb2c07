"""The identifier draw of `scripts.quality.identifiers`: identifiers one document alone holds."""

from __future__ import annotations

from redstring import SourceDocument
from redstring.domain.tokenize import Analyzer
from scripts.quality.identifiers import lone_identifiers, words_only


def test_only_identifiers_one_document_holds_are_drawn_each_with_it() -> None:
    docs = [
        SourceDocument(id="a", text="Set max_connections and call os.path.join or getValue."),
        SourceDocument(id="b", text="See os.path.join, re-order the rows, read_timeout."),
        SourceDocument(id="c", text="Plain words, a_b and x.y only."),
    ]
    drawn = lone_identifiers(docs, sample=10, seed=1)
    assert drawn == {"max_connections": "a", "getValue": "a", "read_timeout": "b"}
    assert len(lone_identifiers(docs, sample=2, seed=1)) == 2


def test_words_only_is_the_analysis_without_its_compound_terms() -> None:
    english = Analyzer()
    text = "set max_connections in os.path.join"
    assert english.terms(text)[-2:] == ["max_connect", "os_path_join"]
    assert words_only(english, text) == english.terms(text)[:-2]
