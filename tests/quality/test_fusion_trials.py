"""The switches tried after ADR 0365: short, flat-topped queries in the lexical order (ADR 0405),
the same sparing codes, the unsure switch ADR 0435 adopted, the lower weight of a long
query ADR 0460 adopted, and the reading of the lexical first's cover ADR 0540 adopted."""

from __future__ import annotations

from redstring.domain.fusion import PooledEvidenceFusion
from redstring.domain.lexical import WordCover
from redstring.domain.query import NormalizedQuery
from scripts.quality.fusion_trials import (
    DEFAULT_ORDER,
    EarlierReading,
    SwitchedPooledFusion,
    UnsureShortForms,
    WholePoolInAnotherScript,
    trial_rules,
)

#: The model's junk sits flat and high; the lexical channel holds the answer with a modest score.
SEMANTIC = (("junk-a", 0.72), ("junk-b", 0.71), ("answer", 0.60))
LEXICAL = (("answer", 0.53), ("other", 0.29))
SWITCH = SwitchedPooledFusion(words=3, gap=0.06, ceiling=0.55)


def _first(query: str | NormalizedQuery, fusion: object = SWITCH) -> str:
    return str(fusion.fuse(SEMANTIC, LEXICAL, query=query)[0][0])  # type: ignore[attr-defined]


def test_a_short_query_over_a_flat_semantic_top_is_answered_in_the_lexical_order() -> None:
    assert _first("Mosambik", DEFAULT_ORDER) == "junk-a"
    assert _first("Mosambik") == "answer"
    assert _first(NormalizedQuery.of("Mosambik")) == "answer"


def test_a_long_query_a_clear_semantic_first_or_a_high_one_keeps_the_default() -> None:
    assert _first("a query of four words") == "junk-a"
    clear = SwitchedPooledFusion(words=3, gap=0.01, ceiling=0.55)
    assert _first("Mosambik", clear) == "junk-a"
    high = SwitchedPooledFusion(words=3, gap=0.06, ceiling=0.40)
    assert _first("Mosambik", high) == "junk-a"


def test_a_code_is_switched_only_as_adr_0405_tried_it() -> None:
    assert _first("MZN") == "answer"
    assert _first("MZN", SwitchedPooledFusion(3, gap=0.06, ceiling=0.55, codes=False)) == "junk-a"


def test_the_trials_grade_the_default_beside_the_switches_on_their_grids() -> None:
    rows = trial_rules()
    default, adr_0405, sparing_codes, unsure, whole_pool, short_forms, long, first, cover = rows[:9]
    backed, pooled, adopted = rows[9:]
    assert default.grid == ((),)
    assert default.make(()) == PooledEvidenceFusion(unsure_words=0, long_words=0)
    assert len(adr_0405.grid) == len(sparing_codes.grid) == 3 * 5 * 5
    assert isinstance(adr_0405.make(adr_0405.grid[0]), SwitchedPooledFusion)
    assert not sparing_codes.make(sparing_codes.grid[0]).codes  # type: ignore[attr-defined]
    assert unsure.make((3.0, 0.5)) == EarlierReading(long_words=0, reads="nothing")
    assert long.make((3.0, 0.5, 0.6)) == EarlierReading(reads="nothing")
    assert cover.make((3.0, 0.5, 0.6)) == EarlierReading(reads="unknown")
    assert first.make((3.0, 0.5, 0.6)) == EarlierReading(reads="cover")
    assert backed.make((3.0, 0.5, 0.6)) == EarlierReading(reads="backing")
    assert pooled.make((3.0, 0.5, 0.6)) == EarlierReading(reads="pool")
    assert adopted.make((3.0, 0.5, 0.6)) == PooledEvidenceFusion()
    assert adopted.make((4.0, 0.55, 0.7)) == PooledEvidenceFusion(
        unsure_words=4, unsure_cosine=0.55, long_words=4, long_lexical_weight=0.7
    )
    assert cover.grid == first.grid == long.grid == backed.grid == pooled.grid == adopted.grid
    assert long.make((2.0, 0.5, 0.6)).long_words == 2  # type: ignore[attr-defined]
    assert len(long.grid) == 3 * 5 * 5
    assert (3.0, 0.5, 0.85) in long.grid  # the long weight equal to the default's: no switch
    assert len(unsure.grid) == len(whole_pool.grid) == len(short_forms.grid) == 3 * 5
    assert isinstance(whole_pool.make((3.0, 0.5)), WholePoolInAnotherScript)
    assert isinstance(short_forms.make((3.0, 0.5)), UnsureShortForms)
    assert short_forms.make((3.0, 0.5)).long_words == 0  # type: ignore[attr-defined]


#: The lexical channel's tenth is the answer; the model's first ten are junk.
LEXICAL_TEN = (*((f"look-alike-{n}", 0.6 - 0.01 * n) for n in range(9)), ("answer", 0.45))
#: The model sure of its first (a cosine of 0.6, above the unsure switch's 0.5).
SEMANTIC_TEN = tuple((f"junk-{n}", 0.80 - 0.01 * n) for n in range(10))


def test_in_another_script_the_whole_pool_lists_every_lexical_id_before_the_model_s() -> None:
    whole_pool = WholePoolInAnotherScript(words=3, cosine=0.5)
    order = [i for i, _ in whole_pool.fuse(SEMANTIC_TEN, LEXICAL_TEN, query="Мозамбик")]
    assert order[:10] == [i for i, _ in LEXICAL_TEN]
    adopted = [
        i for i, _ in PooledEvidenceFusion().fuse(SEMANTIC_TEN, LEXICAL_TEN, query="Мозамбик")
    ]
    assert adopted.index("answer") >= 10  # the pool's first 10 by rank fusion miss it
    latin = whole_pool.fuse(SEMANTIC_TEN, LEXICAL_TEN, query="Mosambik")
    assert latin == PooledEvidenceFusion().fuse(SEMANTIC_TEN, LEXICAL_TEN, query="Mosambik")


def test_the_short_form_trial_switches_a_three_letter_form_but_not_an_acronym() -> None:
    unsure = (("junk-a", 0.70), ("junk-b", 0.69))
    short_forms = UnsureShortForms()
    assert short_forms.numbers_for("ppi", unsure) == (0.0, 1.0)
    assert PooledEvidenceFusion().numbers_for("ppi", unsure) == (0.45, 0.85)
    assert short_forms.numbers_for("PPI", unsure) == (0.45, 0.85)
    assert short_forms.numbers_for("hr", unsure) == (0.45, 0.85)


def test_the_rows_before_adr_0540_do_not_read_the_cover() -> None:
    """A short query whose lexical first lacks only words no entity holds: ordered lexically by
    the adopted fusion, as before by the rows that came before it."""
    sure = (("junk-a", 0.81), ("junk-b", 0.80))  # cosine 0.62: no unsure switch
    lexical = (("answer", 0.49), ("other", 0.46))
    cover = WordCover(holds=True, lacks_held=False, lacks_unheld=True)
    adopted = PooledEvidenceFusion().fuse(sure, lexical, query="Sotho meridional", cover=cover)
    blind = EarlierReading(reads="nothing").fuse(
        sure, lexical, query="Sotho meridional", cover=cover
    )
    assert (adopted[0][0], blind[0][0]) == ("answer", "junk-a")


def test_adr_0540_as_first_written_does_not_read_whether_the_tenant_knows_the_words() -> None:
    """A short query none of whose words any entity holds, even by stem ("dolar nowozelandzki"):
    ordered lexically by the adopted fusion, not by ADR 0540's first reading."""
    sure = (("junk-a", 0.81), ("junk-b", 0.80))  # cosine 0.62: no unsure switch
    lexical = (("answer", 0.49), ("other", 0.46))
    cover = WordCover(holds=False, lacks_held=False, lacks_unheld=True, unknown=True)
    query = "dolar nowozelandzki"
    adopted = PooledEvidenceFusion().fuse(sure, lexical, query=query, cover=cover)
    first = EarlierReading(reads="cover").fuse(sure, lexical, query=query, cover=cover)
    assert (adopted[0][0], first[0][0]) == ("answer", "junk-a")
    assert EarlierReading(reads="cover").fuse(
        sure, lexical, query=query
    ) == PooledEvidenceFusion().fuse(sure, lexical, query=query)


def test_the_rows_before_adr_0580_are_blind_to_its_readings() -> None:
    """Read as ADR 0540 adopted it (`unknown`), neither of ADR 0580's readings counts; read to
    `backing`, only the model's first backed by both channels."""
    semantic = (("close", 0.9), ("look-alike", 0.88), ("other", 0.7))
    lexical = (("look-alike", 0.75), ("close", 0.55), ("other", 0.5))
    filled = WordCover(
        holds=True, lacks_held=True, lacks_unheld=False, filled_by=frozenset({"close"})
    )  # type: ignore[arg-type]
    query = "hypercholesterolemia, familial, 2"
    for kind, first in (
        (PooledEvidenceFusion(), "close"),
        (EarlierReading(reads="backing"), "close"),
        (EarlierReading(reads="unknown"), "look-alike"),
    ):
        assert kind.fuse(semantic, lexical, query=query, cover=filled)[0][0] == first
    noise = tuple((f"junk-{n}", 0.775 - 0.0005 * n) for n in range(10))
    below = (("ppm", 0.53), ("pi", 0.43), ("pixels per inch", 0.37))
    unknown = WordCover(holds=False, lacks_held=False, lacks_unheld=True, unknown=True)
    for kind, found in (
        (PooledEvidenceFusion(), True),
        (EarlierReading(reads="backing"), False),
        (EarlierReading(reads="unknown"), False),
    ):
        ten = [i for i, _ in kind.fuse(noise, below, query="ppi", cover=unknown)[:10]]
        assert ("pixels per inch" in ten) is found
    pooled = EarlierReading(reads="pool").fuse(noise, below, query="ppi", cover=unknown)
    assert "pixels per inch" in [i for i, _ in pooled[:10]]


def test_the_rows_before_adr_0595_do_not_read_an_abbreviated_word() -> None:
    """An "hr" whose lexical first "hour" is above the floor, the model unsure of ten places: the
    adopted fusion orders it lexically, ADR 0580 as adopted (`pool`) by the evidence."""
    noise = tuple((f"place-{n}", 0.69 - 0.0005 * n) for n in range(10))  # cosine 0.38
    lexical = (("hour", 0.51), ("bohr magneton", 0.43))
    unknown = WordCover(holds=False, lacks_held=False, lacks_unheld=True, unknown=True)
    adopted = PooledEvidenceFusion().fuse(noise, lexical, query="hr", cover=unknown)
    pooled = EarlierReading(reads="pool").fuse(noise, lexical, query="hr", cover=unknown)
    assert (adopted[0][0], pooled[0][0]) == ("hour", "place-0")
