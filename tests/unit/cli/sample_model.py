"""A scripted OpenAI-protocol model that 'reads' the bundled sample documents.

Chat requests are answered by the first marker found in the prompt (the
domain question, or a phrase of one sample document); embedding requests get
`FakeEmbeddingProvider` vectors of `DIMENSION` (texts sharing words point
alike). Served by the providers' test server.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redstring.extraction.prompts import CLASSIFY_MARKER
from redstring.providers import FakeEmbeddingProvider
from tests.unit.adapters.openai_protocol_server import Reply, Script
from tests.unit.adapters.server_profiles import Profile, profiled

DIMENSION = 16
_EMBEDDINGS = FakeEmbeddingProvider(dimension=DIMENSION)


def _e(name: str, kind: str, description: str = "") -> dict[str, str]:
    return {"name": name, "type": kind, "description": description}


def _r(source: str, target: str, kind: str) -> dict[str, str]:
    return {"source": source, "target": target, "type": kind}


ANSWERS: dict[str, Any] = {
    CLASSIFY_MARKER: {"domain": "people_and_organisations", "confidence": 0.9},
    "Ada Lovelace (1815": {
        "entities": [
            _e("Ada Lovelace", "person", "mathematician the first computer program"),
            _e("Charles Babbage", "person", "designer of the Analytical Engine"),
            _e("Luigi Menabrea", "person", "Italian engineer"),
        ],
        "relationships": [_r("Ada Lovelace", "Charles Babbage", "knows")],
    },
    "Charles Babbage (1791": {
        "entities": [
            _e("Charles Babbage", "person", "mathematician and engineer"),
            _e("Ada Lovelace", "person"),
            _e("University of Cambridge", "organization"),
        ],
        "relationships": [_r("Charles Babbage", "University of Cambridge", "member_of")],
    },
    "Grace Hopper (1906": {
        "entities": [
            _e("Grace Hopper", "person", "computer scientist who wrote the first compiler"),
            _e("United States Navy", "organization"),
            _e("Remington Rand", "organization"),
        ],
        "relationships": [
            _r("Grace Hopper", "United States Navy", "member_of"),
            _r("Grace Hopper", "Remington Rand", "works_for"),
        ],
    },
    "Alan Turing (1912": {
        "entities": [
            _e("Alan Turing", "person", "logician"),
            _e("Bletchley Park", "location"),
            _e("National Physical Laboratory", "organization"),
        ],
        "relationships": [_r("Alan Turing", "National Physical Laboratory", "works_for")],
    },
    "ACME Corporation (also": {
        "entities": [
            _e("ACME Corporation", "organization", "makes anvils"),
            _e("Phoenix", "location"),
            _e("Jane Roe", "person", "chief engineer"),
        ],
        "relationships": [
            _r("ACME Corporation", "Phoenix", "located_in"),
            _r("Jane Roe", "ACME Corporation", "works_for"),
        ],
    },
    # the extraction gold set's own documents (tests/data/extraction/docs)
    "Marie Curie, born": {
        "entities": [
            _e("Marie Curie", "person", "physicist and chemist"),
            _e("Pierre Curie", "person"),
            _e("Warsaw", "location"),
            _e("University of Paris", "organization"),
        ],
        "relationships": [
            _r("Marie Curie", "Pierre Curie", "knows"),
            _r("Marie Curie", "University of Paris", "works_for"),
        ],
    },
    "Bell Labs, founded": {
        "entities": [
            _e("Bell Labs", "organization", "research arm of AT&T"),
            _e("Bell Telephone Laboratories", "organization"),
            _e("AT&T", "organization"),
            _e("Claude Shannon", "person"),
            _e("Dennis Ritchie", "person"),
        ],
        "relationships": [
            _r("Bell Labs", "AT&T", "subsidiary_of"),
            _r("Claude Shannon", "Bell Labs", "works_for"),
        ],
    },
    "Linus Torvalds began": {
        "entities": [
            _e("Linus Torvalds", "person", "began the Linux kernel"),
            _e("University of Helsinki", "organization"),
            _e("Linux Foundation", "organization"),
            _e("Richard Stallman", "person"),
        ],
        "relationships": [_r("Linus Torvalds", "University of Helsinki", "member_of")],
    },
}


def meaning(prompt: str) -> dict[str, Any]:
    """The answer for the first marker in `prompt`; `{}` (no answer) when none is there."""
    for marker, answer in ANSWERS.items():
        if marker in prompt:
            return answer
    return {}


def embeddings(request: dict[str, Any]) -> Reply:
    vectors = asyncio.run(_EMBEDDINGS.embed(request["input"]))
    data = [
        {"object": "embedding", "index": i, "embedding": vector} for i, vector in enumerate(vectors)
    ]
    return Reply(body={"object": "list", "data": data, "model": request["model"]})


def behaving_as(profile: Profile) -> Script:
    """The sample model served the way `profile` says (embeddings answered normally)."""
    chat = profiled(profile, meaning)

    def respond(path: str, request: dict[str, Any], number: int) -> Reply:
        if path.endswith("/embeddings"):
            return embeddings(request)
        return chat(path, request, number)

    return respond


#: The sample model on a server that accepts every format.
script = behaving_as(Profile())
