"""ArguAna rebuilt from its authors' release: BEIR's ids, texts, titles and choice of documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts.quality.arguana import prepare_arguana_release, read_release


def _debate(root: Path, where: str, url: str, arguments: dict[str, str]) -> None:
    folder = root / where
    folder.mkdir(parents=True)
    (folder / "metadata.txt").write_text(f"url\t{url}\nreads\t10\n", encoding="utf-8")
    (folder / "thesis.txt").write_text("This House would", encoding="utf-8")
    for name, text in arguments.items():
        side = name[:3]
        (folder / side).mkdir(exist_ok=True)
        kind = "point" if name.endswith("a") else "counter"
        (folder / side / f"{name}-{kind}.txt").write_text(text, encoding="utf-8")


@pytest.fixture
def release(tmp_path: Path) -> Path:
    root = tmp_path / "02-extracted-arguments"
    _debate(
        root,
        "test/environment/animals-environment-house-would-go-vegetarian",
        "https://idebate.org/debatabase/environment-animals-environment-house-would-go-vegetarian",
        {
            "pro01a": (
                "Meat harms the planet\n\nFarming pollutes rivers. [1]\n\n"
                "[1] A report http://x.org/r \n"
            ),
            "pro01b": "Grazing keeps pastures alive.\n",
            "con01a": "Humans are omnivores\n\nWe evolved to eat meat.\n",
            "con01b": "Shared text of two counters.\n",
        },
    )
    _debate(
        root,
        "test/health/health-house-would-go-vegetarian",
        "https://idebate.org/debatabase/health/house-would-go-vegetarian",
        {
            "pro01a": "Meat is unhealthy\n\nFibre.\n",
            "pro01b": "Shared text of two counters.\n",
            "con01a": "A point whose counter the release lacks\n\nStill a query.\n",
        },
    )
    _debate(
        root,
        "training/economy/economy-house-would-tax-meat",
        "https://idebate.org/debatabase/economy/house-would-tax-meat",
        {"pro01a": "Tax meat\n\nIt pays.\n", "pro01b": "Grazing keeps pastures alive.\n"},
    )
    _debate(
        root,
        "validation/economy/economy-house-would-tax-meat-again",
        "https://idebate.org/debatabase/economy/house-would-tax-meat-again",
        {"con01a": "Tax meat\n\nIt pays.\n", "con01b": "Only in validation.\n"},
    )
    return root


def test_ids_texts_and_titles_are_read_as_beir_writes_them(release: Path) -> None:
    found = {a.id: a for a in read_release(release)}
    point = found["test-environment-aehwgv-pro01a"]
    # The heading and body stay apart by two spaces; the address is cut, its spaces kept.
    assert point.text == "Meat harms the planet  Farming pollutes rivers. [1]  [1] A report"
    assert point.title == "animals environment house would go vegetarian"
    assert found["training-economy-ehwtm-pro01a"].title == ""
    assert found["validation-economy-ehwtma-con01b"].text == "Only in validation."


def test_every_counter_of_a_test_point_is_kept_and_other_repeats_are_not(
    release: Path, tmp_path: Path
) -> None:
    made = prepare_arguana_release(release, tmp_path / "beir")
    assert set(made.documents) == {
        "test-environment-aehwgv-pro01a",
        "test-environment-aehwgv-pro01b",
        "test-environment-aehwgv-con01a",
        "test-environment-aehwgv-con01b",
        "test-health-hhwgv-pro01a",
        "test-health-hhwgv-pro01b",
        "test-health-hhwgv-con01a",  # the same text as another test counter, still kept
        "training-economy-ehwtm-pro01a",
        # training pro01b repeats a test counter's text; validation con01a repeats training
        "validation-economy-ehwtma-con01b",
    }
    assert made.queries["test-health-hhwgv-pro01a"] == "Meat is unhealthy  Fibre."
    assert made.qrels == {
        "test-environment-aehwgv-con01a": {"test-environment-aehwgv-con01b": 1.0},
        "test-environment-aehwgv-pro01a": {"test-environment-aehwgv-pro01b": 1.0},
        "test-health-hhwgv-pro01a": {"test-health-hhwgv-pro01b": 1.0},
        # its counter is missing: still judged, as BEIR's 1,406 qrels are
        "test-health-hhwgv-con01a": {"test-health-hhwgv-con01b": 1.0},
    }
    assert made.text_of("test-health-hhwgv-pro01b") == (
        "health house would go vegetarian Shared text of two counters."
    )


def test_a_folder_without_the_release_says_what_it_expected(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"point\.txt"):
        read_release(tmp_path)


def test_another_splits_points_ask_the_same_documents(release: Path, tmp_path: Path) -> None:
    """A development split keeps BEIR's documents and asks its own points, each judged by
    its counter; a point whose counter repeats a kept text (so is no document) is left out."""
    test = prepare_arguana_release(release, tmp_path / "test")
    validation = prepare_arguana_release(release, tmp_path / "validation", "validation")
    assert validation.documents == test.documents
    assert validation.queries == {"validation-economy-ehwtma-con01a": "Tax meat  It pays."}
    assert validation.qrels == {
        "validation-economy-ehwtma-con01a": {"validation-economy-ehwtma-con01b": 1.0}
    }
    # training's one point has a counter repeating a test counter's text
    assert prepare_arguana_release(release, tmp_path / "training", "training").queries == {}
    with pytest.raises(ValueError, match="training"):
        prepare_arguana_release(release, tmp_path / "dev", "dev")
