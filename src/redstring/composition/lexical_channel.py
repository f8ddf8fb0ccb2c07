"""The lexical channel: a normalised query in, the best-scored entities of one tenant out.

Composes a graph store's `GraphReader` and `BlockingIndex` with the domain's
keys, rarity weights and `lexical_score`; `Retriever` calls it for LEXICAL
and HYBRID. Candidates come from four lookups, never a scan (ADR 0070, 0115,
0350):

- the query's exact-name key: every entity named (or aliased) exactly as the
  query, first, so no cap can lose it;
- its name keys (`query_blocking_keys`), ranked by how many keys an entity
  sits under. A block holding more than `LEXICAL_BLOCK_LIMIT` entities is
  too common to tell anything (its first ids are a sample by id, not by
  name): it is skipped, not cut, unless an entity-type filter asks for
  every candidate, when it is cut at `LEXICAL_BLOCK_LIMIT` (ADR 0200). The
  blocks are counted first, so a skipped block is never read (B206(c));
- its trigram keys: counted (up to `NGRAM_DF_CAP`) to weigh them, read
  rarest first within `NGRAM_POSTINGS_BUDGET`, ranked by summed weight;
- its whole-word keys (`k:`): counted with the trigrams, so each word weighs
  by its rarity, and the rarest held word's block read: the entities holding
  every query word are among its members (ADR 0350).

The two ranked sources are interleaved after the exact matches, the holders
of a rare word (at most `RARE_WORD_LIMIT`), the best `NGRAM_KEPT` trigram
candidates and the holders of every word into a pool (at most
`PRESCORE_POOL_LIMIT` from the name keys); a pool larger than
`CANDIDATE_LIMIT` is cut by `prescore_cut` over the pool's names, read with
`get_names` (ADR 0201), which keeps the leading exact, rare-word and trigram
ids and puts the holders of every word before the rest. The entity-type
filter applies before any cut, and every candidate kept is scored with the
same weights.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from redstring.domain.blocking import (
    LEXICAL_BLOCK_LIMIT,
    WORD_NAMESPACE,
    interleave,
    query_blocking_keys,
    query_exact_key,
    query_ngram_keys,
    query_token_keys,
    shortlist,
    telling_blocks,
)
from redstring.domain.entity import Entity
from redstring.domain.ids import EntityId, TenantId, entity_id_from_int
from redstring.domain.lexical import WordCover, lexical_scores, word_cover
from redstring.domain.ngrams import (
    NGRAM_CANDIDATE_LIMIT,
    NGRAM_DF_CAP,
    ngram_weights,
    rank_by_ngrams,
    rarest_first,
)
from redstring.domain.normalization import normalize_name
from redstring.domain.prescore import PRESCORE_POOL_LIMIT, name_forms, prescore_cut
from redstring.domain.query import NormalizedQuery
from redstring.ports.graph_store import BlockingIndex, GraphReader, GraphStore

#: The most candidates the channel fetches and scores per query (exact matches first).
#: Was LEXICAL_CANDIDATE_LIMIT + NGRAM_CANDIDATE_LIMIT (100) before the pre-score chose them;
#: 60 pre-scored hold as much of a full scan's answer at 100k as 70 do.
CANDIDATE_LIMIT = 60
#: The most entities holding the query's rarest word that are all scored, whatever
#: the pre-score reads of them: a word this rare is strong evidence (ADR 0350).
RARE_WORD_LIMIT = 20
#: The most of the trigram source's best (ranked by rarity-weighted shared trigrams) kept
#: whole before the pre-score, which reads no rarity, cuts the rest of the pool (ADR 0350).
NGRAM_KEPT = 10


@dataclass(frozen=True)
class LexicalAnswer:
    """The lexical channel's answer: every candidate scored, best first, and how the first
    covers the query's words against the tenant's (`None` when there is no candidate)."""

    scored: list[tuple[Entity, float]]
    cover: WordCover | None


async def rank_lexically(
    graph: GraphStore,
    query: NormalizedQuery,
    tenant_id: TenantId,
    entity_types: Sequence[str] | None,
) -> list[tuple[Entity, float]]:
    """Every candidate (at most `CANDIDATE_LIMIT`) with its score, best first; ties by
    ascending id string. No step reads `k`: the retriever cuts the fused answer (ADR 0395)."""
    return (await answer_lexically(graph, query, tenant_id, entity_types)).scored


async def answer_lexically(
    graph: GraphStore,
    query: NormalizedQuery,
    tenant_id: TenantId,
    entity_types: Sequence[str] | None,
) -> LexicalAnswer:
    """`rank_lexically`'s candidates, and the first's `WordCover`, read from the counts of the
    query's `k:` keys the channel counts anyway to weigh each word (ADR 0350, 0540) and, when
    none of its words is held, from the candidates' names (a word's stem)."""
    keys, grams, words = (
        query_blocking_keys(query),
        query_ngram_keys(query),
        query_token_keys(query),
    )
    exact_key = query_exact_key(query)
    wanted = None if entity_types is None else {normalize_name(t) for t in entity_types}
    # Counted one past the limit: a block that fits, or one too common to rank by.
    sizes, counts = await asyncio.gather(
        graph.count_blocking_keys(keys, tenant_id, limit=LEXICAL_BLOCK_LIMIT + 1),
        graph.count_blocking_keys([*grams, *words], tenant_id, limit=NGRAM_DF_CAP),
    )
    # A too-common block is read only when it is the exact name's or a type filter
    # wants every candidate: its ids would be skipped unread otherwise (B206(c)).
    named = [
        k for k in keys if wanted is not None or k == exact_key or sizes[k] <= LEXICAL_BLOCK_LIMIT
    ]
    rarest = rarest_word(words, counts)
    weights = ngram_weights(counts)
    gram_counts = {key: counts[key] for key in grams}
    read_blocks, postings = await asyncio.gather(
        graph.find_ids_by_blocking_keys(
            named if rarest is None else [*named, rarest], tenant_id, limit=LEXICAL_BLOCK_LIMIT
        ),
        graph.find_ids_by_blocking_keys(rarest_first(gram_counts), tenant_id, limit=NGRAM_DF_CAP),
    )
    # Every entity holding all the query's words is under its rarest word's key, and
    # when that word is rare, every entity under it is worth scoring (ADR 0350).
    under = read_blocks.pop(rarest, []) if rarest is not None else []
    every_word = all(counts[key] for key in words)
    names, read = (
        await _names_of_holders(graph, query, under, tenant_id) if every_word else ({}, {})
    )
    # From here ids are numbers (`EntityId.int`): only the kept ones become ids (B206(c)).
    exact = read_blocks.get(exact_key, []) if exact_key is not None else []
    rare = under if len(under) <= RARE_WORD_LIMIT else []
    gram_weights = ngram_weights(gram_counts)
    if wanted is None:
        blocks = telling_blocks(read_blocks, sizes, LEXICAL_BLOCK_LIMIT)
        by_ngrams = rank_by_ngrams(postings, gram_weights, NGRAM_CANDIDATE_LIMIT)
        sources = [shortlist(blocks, PRESCORE_POOL_LIMIT), by_ngrams]
        # Kept whole: the exact names, the holders of a rare word, the rarest trigram sharers.
        kept = list(dict.fromkeys([*exact, *rare, *by_ngrams[:NGRAM_KEPT]]))
        lead = list(dict.fromkeys([*kept, *names]))
        pool = interleave(lead, sources, len(lead) + PRESCORE_POOL_LIMIT + NGRAM_CANDIDATE_LIMIT)
        ranked = await _cut(graph, query, pool, len(kept), tenant_id, known=read)
        candidates = await graph.get_entities(_ids(ranked), tenant_id)
    else:
        sources = [
            shortlist(read_blocks, sum(len(ids) for ids in read_blocks.values())),
            rank_by_ngrams(postings, gram_weights, sum(len(ids) for ids in postings.values())),
        ]
        lead = list(dict.fromkeys([*exact, *rare, *names]))
        ranked = interleave(lead, sources, len(lead) + sum(len(s) for s in sources))
        candidates = await _of_types(graph, ranked, wanted, tenant_id)
    # Every candidate shares a key, hence a trigram, with the query: each one gets a rank.
    scored = list(zip(candidates, lexical_scores(query, candidates, weights), strict=True))
    scored.sort(key=lambda pair: (-pair[1], str(pair[0].id)))
    holders = {key: counts[key] for key in words}
    if not scored:
        return LexicalAnswer(scored, None)
    return LexicalAnswer(scored, word_cover(query, scored[0][0], holders, candidates))


def rarest_word(words: Sequence[str], counts: Mapping[str, int]) -> str | None:
    """The `k:` key of `words` held by the fewest entities but one at least; `None` when none is.

    Ties go to the key string.
    """
    held = [key for key in words if counts[key] > 0]
    return min(held, key=lambda key: (counts[key], key)) if held else None


def _ids(numbers: Sequence[int]) -> list[EntityId]:
    return [entity_id_from_int(number) for number in numbers]


async def _names_of_holders(
    graph: BlockingIndex, query: NormalizedQuery, under: list[int], tenant_id: TenantId
) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    """The names of the numbers of `under` (one word's block) with a name holding every word,
    and every name read to find them (for `_cut`, which then reads none of them again).

    When the query's one word is that block's, every id holds it and no name is read.
    """
    if not under:
        return {}, {}
    if len(query.words) == 1 and query_token_keys(query) == [WORD_NAMESPACE + min(query.words)]:
        return {entity_id: [] for entity_id in under}, {}
    names = await graph.get_names(under, tenant_id)
    holders = {
        entity_id: names[entity_id]
        for entity_id in under
        if any(query.held_by(name_forms(name).tokens) for name in names[entity_id])
    }
    return holders, names


async def _cut(
    graph: BlockingIndex,
    query: NormalizedQuery,
    pool: list[int],
    exact: int,
    tenant_id: TenantId,
    *,
    known: dict[int, list[str]],
) -> list[int]:
    """The first `CANDIDATE_LIMIT` of `pool`'s `exact` leading ids, then the pre-score's best.

    A pool within `CANDIDATE_LIMIT` is kept whole (a cut would drop nothing);
    a larger one costs one read of the names not `known`.
    """
    if len(pool) <= CANDIDATE_LIMIT:
        return pool
    rest = pool[exact:]
    names = await graph.get_names([i for i in rest if not known.get(i)], tenant_id)
    names.update({i: known[i] for i in rest if known.get(i)})
    best = prescore_cut(query, names, CANDIDATE_LIMIT - exact)
    return [*pool[:exact], *best][:CANDIDATE_LIMIT]


async def _of_types(
    graph: GraphReader, ranked: list[int], wanted: set[str], tenant_id: TenantId
) -> list[Entity]:
    """The first `CANDIDATE_LIMIT` entities of `ranked` whose type is wanted.

    The filter applies before the cut: `ranked` is walked in slices until
    enough entities of the wanted types are found or it runs out.
    """
    found: list[Entity] = []
    for start in range(0, len(ranked), CANDIDATE_LIMIT):
        part = ranked[start : start + CANDIDATE_LIMIT]
        held = {e.id.int: e for e in await graph.get_entities(_ids(part), tenant_id)}
        for number in part:
            entity = held.get(number)
            if entity is not None and normalize_name(entity.entity_type) in wanted:
                found.append(entity)
        if len(found) >= CANDIDATE_LIMIT:
            break
    return found[:CANDIDATE_LIMIT]
