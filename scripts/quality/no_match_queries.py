"""Entity queries that must match nothing: invented words, off-topic questions, word combinations.

Deterministic (seeded by `rng_for`), from short word lists written here for
this purpose (no dictionary, gazetteer or ontology), and asked of every
entity corpus and passage set. A query is dropped when one of its words
(three letters or more) is a word of any entity name or alias in the entity
corpora, so none names something a corpus holds. Families:

- `invented`: one to three invented words ("gravoulen tromesi");
- `off_topic`: everyday questions from templates ("why does my toaster smell of smoke");
- `word_combo`: two to four everyday words at random ("banana quantum zebra").

Each query's half is `split_of` its id, like every other corpus. Written to
`NO_MATCH_QUERIES` by `uv run python -m scripts.fit_confidence --generate`.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from .common import DATA_DIR, fold, rng_for, split_of, write_lines_json
from .harness import CONFIDENCE_CORPORA
from .invented import invented_token

NO_MATCH_QUERIES = DATA_DIR / "no_match_queries.json"
PER_FAMILY = 120

# Everyday words, chosen to be far from currencies, languages, places,
# elements, units, people and organisations.
THINGS = (
    "banana", "toaster", "sock", "umbrella", "pillow", "teapot", "zebra", "giraffe",
    "pancake", "bicycle", "kettle", "sandwich", "hamster", "spoon", "blanket", "carrot",
    "cupcake", "doorbell", "backpack", "waffle", "noodle", "pumpkin", "parrot", "raincoat",
    "sofa", "lemonade", "puppy", "kitten", "broom", "scarf", "penguin", "muffin",
    "trampoline", "sneaker", "lollipop", "hedgehog", "popcorn", "skateboard", "mattress",
    "cucumber", "dishwasher", "goldfish", "flashlight", "toothbrush", "ladder", "jellyfish",
)  # fmt: skip
QUALITIES = (
    "quantum", "fluffy", "sleepy", "crunchy", "purple", "invisible", "grumpy", "sparkly",
    "wobbly", "soggy", "noisy", "gigantic", "tiny", "ticklish", "spicy", "haunted",
    "polite", "furious", "velvet", "frozen", "dancing", "melancholy", "electric", "lazy",
)  # fmt: skip
ACTIVITIES = (
    "knit a scarf", "bake sourdough bread", "train a puppy", "fix a squeaky door",
    "fold a fitted sheet", "grow tomatoes on a balcony", "clean a cast iron pan",
    "learn to juggle", "remove a wine stain", "tie a bow tie", "pack for a camping trip",
    "make cold brew coffee", "stop a dripping tap", "repot a cactus", "wrap a present",
    "sharpen a pencil", "choose a good watermelon", "carve a pumpkin", "iron a shirt",
)  # fmt: skip
SYMPTOMS = (
    "smell of smoke", "make a clicking noise", "keep beeping", "stop working at night",
    "feel sticky", "wobble on the floor", "turn off by itself", "leak on the carpet",
)  # fmt: skip
TEMPLATES = (
    "how do I {activity}",
    "what is the easiest way to {activity}",
    "why does my {thing} {symptom}",
    "is it safe to leave a {thing} outside in the rain",
    "where can I buy a {quality} {thing}",
    "best {thing} for a small apartment",
    "can a {thing} be recycled",
    "tips to {activity} without getting tired",
)


def _invented(r: random.Random) -> str:
    return " ".join(invented_token(r).lower() for _ in range(r.choice([1, 2, 2, 3])))


def _off_topic(r: random.Random) -> str:
    template = r.choice(TEMPLATES)
    return template.format(
        activity=r.choice(ACTIVITIES),
        thing=r.choice(THINGS),
        symptom=r.choice(SYMPTOMS),
        quality=r.choice(QUALITIES),
    )


def _word_combo(r: random.Random) -> str:
    words = r.sample(THINGS, r.choice([1, 2])) + r.sample(QUALITIES, 1)
    r.shuffle(words)
    return " ".join(words[: r.choice([2, 3, 3, 4])])


FAMILIES = {"invented": _invented, "off_topic": _off_topic, "word_combo": _word_combo}


def entity_words(paths: list[Path] | None = None) -> frozenset[str]:
    """Every folded word (3+ letters) of any entity name or alias in the entity corpora."""
    words: set[str] = set()
    for path in paths or list(CONFIDENCE_CORPORA.values()):
        for row in json.loads(path.read_text(encoding="utf-8"))["entities"]:
            for name in (row["name"], *row["aliases"]):
                words.update(w for w in fold(name).split() if len(w) >= 3)
    return frozenset(words)


def build(out: Path = NO_MATCH_QUERIES) -> dict[str, Any]:
    """Generate the queries (`PER_FAMILY` per family, distinct) and write them to `out`."""
    taken = entity_words()
    seen: set[str] = set()
    queries: list[dict[str, Any]] = []
    for family, make in FAMILIES.items():
        r = rng_for(f"no_match:{family}")
        made = 0
        while made < PER_FAMILY:
            text = make(r)
            if fold(text) in seen or any(w in taken for w in fold(text).split() if len(w) >= 3):
                continue
            seen.add(fold(text))
            made += 1
            qid = f"no_match-{family}-{made:04d}"
            queries.append(
                {"id": qid, "shape": family, "split": split_of(qid), "query": text, "targets": []}
            )
    payload = {
        "meta": {
            "description": "Queries no entity or passage of the quality corpora answers.",
            "generator": "scripts/quality/no_match_queries.py",
            "families": sorted(FAMILIES),
            "grading": "nothing: targets is empty; an answer should be empty",
        },
        "queries": queries,
    }
    write_lines_json(out, payload)
    return payload


def load_no_match(path: Path = NO_MATCH_QUERIES) -> list[dict[str, Any]]:
    """The committed no-match queries, as written by `build`."""
    loaded: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["queries"]
    return loaded
