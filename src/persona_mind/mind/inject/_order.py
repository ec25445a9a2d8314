"""The candidates of one block section, in the order the allocator admits them.

Why a module of its own: ranking (priority facts first, then task match — BM25 or hybrid —
then recency among ties) is a separate decision from how much fits; the allocator only
walks this order (M-INJECT-5/6).  A fact below the relevance floor
(:mod:`persona_mind.mind.recall._floor`) is no candidate: recency orders ties, it never
fills a section.  Pinned kinds (objective, invariant) keep their priority slots.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from persona_mind.mind.inject._plan import PRIORITY_SLOTS, Cand
from persona_mind.mind.recall._floor import PromptWeights
from persona_mind.mind.recall._fusion import Fusion, explain, task_scores
from persona_mind.mind.recall._ranker import Semantic
from persona_mind.mind.recall._retrieval import FactIndex, Ranked, query_terms


def _key(r: Ranked) -> tuple[float, float, str]:
    return (-r.score, -r.fact.lastSeenAt, r.fact.id)


def ordered(
    indexes: Sequence[tuple[str, FactIndex]],
    prompt: str,
    want: int,
    semantic: Semantic | None = None,
    fusion: Fusion = "score",
    floored: list[Cand] | None = None,
    *,
    floor: bool = True,
) -> list[Cand]:
    """At most ``PRIORITY_SLOTS`` objective/invariant facts first, then task match, then recency.

    Several indexes (persona + shared LTM) share one section, so their rankings are merged
    by the same key; priority stays bounded across the whole section (M-INJECT-5/6).  The
    task-match score is BM25's, or the hybrid score when a semantic ranker is given.

    With ``floor`` (memory tiers; session notes pass ``False``) and a prompt that has terms
    (an empty prompt asks for no task, so recency orders everything) only facts above the
    relevance floor are candidates; those left out are appended to ``floored`` when given
    (for the plan's explanation).  Every candidate gets its covered information.
    """
    live = [(label, index) for label, index in indexes if len(index)]
    if not live:
        return []  # empty tiers have no candidate (and cost no scoring)
    prio: list[Cand] = []
    rest: list[Cand] = []
    keys: list[tuple[int, float, float, str]] = []  # each of ``rest``'s order key, inline
    qterms, qtokens = query_terms(prompt)
    floor = floor and bool(qterms)
    for label, index in live:
        scored, sims = task_scores(index, prompt, semantic, want + PRIORITY_SLOTS, fusion)
        weights = PromptWeights(index, qterms, sims)
        slot_of = index.slot_of
        if index.priority_set:  # a tier without objective/invariant facts pins nothing
            hits = scored.keys() & index.priority_set
            facts = index.facts
            best = heapq.nsmallest(
                PRIORITY_SLOTS,
                hits,
                key=lambda d: (-scored[d], -facts[d].lastSeenAt, facts[d].id),
            )
            mp = [index.ranked(d, qtokens, scored) for d in best]
            for d in index.priority:
                if len(mp) >= PRIORITY_SLOTS:
                    break
                if d not in scored:
                    mp.append(Ranked(index.facts[d], 0.0, ()))
            explain(mp, index, sims)
            for r, c in zip(mp, weights.covers([slot_of[r.fact.id] for r in mp]), strict=True):
                r.cover = c
            prio += [(label, r, index) for r in mp]
        ranked = index.rank(prompt, want + PRIORITY_SLOTS, scored)
        explain(ranked, index, sims)
        admits = weights.admits
        covers = weights.covers([slot_of[r.fact.id] for r in ranked])
        for r, c in zip(ranked, covers, strict=True):
            r.cover = c
            score = r.score
            if not floor or admits(c if score > 0 else 0.0, r.semantic):
                rest.append((label, r, index))
                fact = r.fact
                keys.append((0 if score > 0 else 1, -score, -fact.lastSeenAt, fact.id))
            elif floored is not None:
                floored.append((label, r, index))
    # ``rest`` in (matched first, score, recency, id) order; a stable sort of positions by
    # their precomputed keys is the order ``sorted(rest, key=...)`` gave, without two
    # Python calls per candidate
    by_key = sorted(range(len(rest)), key=keys.__getitem__)
    if not prio and len({label for label, _ in live}) == len(live):
        # nothing pinned, and one index's ranking never repeats a fact: no duplicates to
        # drop, and no floored candidate is among the chosen
        return [rest[i] for i in by_key]
    prio.sort(key=lambda t: _key(t[1]))
    chosen = prio[:PRIORITY_SLOTS]
    seen = {(t[0], t[1].fact.id) for t in chosen}
    out = list(chosen)
    for i in by_key:
        cand = rest[i]
        ident = (cand[0], cand[1].fact.id)
        if ident not in seen:
            seen.add(ident)
            out.append(cand)
    if floored is not None:  # a pinned fact below the floor is a candidate all the same
        floored[:] = [c for c in floored if (c[0], c[1].fact.id) not in seen]
    return out
