"""Retrieval-quality corpora and the one evaluation harness.

Generators (run by `scripts.generate_quality_corpus`, deterministic:
regenerating gives byte-identical files) write into `tests/data/quality/`;
the harness (`harness.py`), the report (`report.py`, run by
`scripts.evaluate_retrieval`) and the CI floors read them.

Entity corpus format (`entity_corpus.json` "names", `world_corpus.json`
"world", `bio_corpus.json` "bio", `icd_corpus.json` "icd"): one JSON
object, one entity or query per line.

- `meta`: description, generator, seed, grading rule, sources (with versions).
- `entities[]`: `key` (corpus-unique string; the harness maps it to an
  `EntityId` by uuid5), `name`, `entity_type`, `description` (optional; the
  write path embeds `name (type): description`), `aliases[]`, `properties{}`.
- `queries[]`: `id` (unique), `shape` (the query family), `split` (`fit` or
  `holdout`, from `common.split_of(id)`: SHA-256 of the id, stable), `query`
  (the text), `target` (the key the query was made from, or null),
  `targets[]` (every acceptable key: a hit is any of them in the top 10;
  empty for `no_match`), `target_type`, `source`, and per-family extras
  (`lang`, `template`, ...).
"""
