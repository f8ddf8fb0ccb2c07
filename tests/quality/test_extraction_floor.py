"""Floors the extraction harness may not fall below against the scripted sample model.

The scripted model (tests/unit/cli/sample_model.py, over the loopback
OpenAI-protocol server) answers a few entities per gold document; the gold
set (tests/data/extraction/gold.json) holds what a careful reader extracts.
So these figures measure the write path (parsing, type conformance,
consolidation, scoring), not a model. Measured with
`uv run python -m scripts.extraction_quality --base-url ... --model scripted`
(the general domain):

    entities       precision 1.000  recall 0.417  (26 built, 60 in the gold set)
    relationships  precision 0.917  recall 0.275  (12 built, 40 gold pairs)
    duplicates left unmerged  1  (Bell Labs / Bell Telephone Laboratories)

Move a floor only with the change that earns it.
"""

from __future__ import annotations

import json

import pytest

from redstring import Entity, Relationship
from scripts.extraction_quality import Gold, GoldEntity, main, score_graph
from tests.factories import DEFAULT_TENANT
from tests.unit.adapters.openai_protocol_server import serve
from tests.unit.adapters.server_profiles import Profile
from tests.unit.cli.sample_model import behaving_as


def test_the_scripted_model_stays_above_its_floors(capsys: pytest.CaptureFixture[str]) -> None:
    # Run as the docs tell a user to run it against their own server.
    with serve(behaving_as(Profile())) as server:
        status = main(["--base-url", server.base_url, "--model", "scripted", "--json"])
    assert status == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["failure_causes"] == {}
    assert figures["answer_format"] == "json_schema"
    assert figures["entity_precision"] >= 0.98
    assert figures["entity_recall"] >= 0.40
    assert figures["relationship_precision"] >= 0.90
    assert figures["relationship_recall"] >= 0.25
    assert figures["duplicates_unmerged"] <= 1
    assert (figures["gold_entities"], figures["gold_relationships"]) == (60, 40)


def test_scores_match_by_name_or_alias_and_count_unmerged_duplicates() -> None:
    gold = Gold(
        domain="general",
        paths=[],
        entities=[
            GoldEntity(key="bell labs", names={"bell labs", "bell telephone laboratories"}),
            GoldEntity(key="claude shannon", names={"claude shannon"}),
            GoldEntity(key="unix", names={"unix"}),
        ],
        pairs={frozenset({"claude shannon", "bell labs"}), frozenset({"unix", "bell labs"})},
    )

    def entity(name: str, *aliases: str) -> Entity:
        return Entity(
            tenant_id=DEFAULT_TENANT, entity_type="organization", name=name, aliases=list(aliases)
        )

    labs, labs_again = entity("Bell Labs"), entity("BTL", "Bell Telephone Laboratories")
    shannon, stranger = entity("Claude Shannon"), entity("Nobody Known")
    relationships = [
        Relationship(
            tenant_id=DEFAULT_TENANT,
            source_id=labs_again.id,
            target_id=shannon.id,
            relationship_type="other",
        ),
        Relationship(
            tenant_id=DEFAULT_TENANT,
            source_id=shannon.id,
            target_id=stranger.id,
            relationship_type="other",
        ),
    ]
    scores = score_graph(gold, [labs, labs_again, shannon, stranger], relationships)
    assert (scores.entity_precision, scores.entity_recall) == (0.75, 2 / 3)
    assert (scores.relationship_precision, scores.relationship_recall) == (0.5, 0.5)
    assert scores.duplicates_unmerged == 1
