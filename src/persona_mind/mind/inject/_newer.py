"""Updates in a section's candidate order: the newer fact first, the older marked earlier.

Why: when a later fact changes a value of an earlier one (a port, a version, a reversed
decision), a block that shows the old value first, or the two unmarked, leaves the model to
guess which holds.  Among a section's ranked candidates, a fact that updates another
(:func:`~persona_mind.mind.facts._updates.is_update`, recorded later) is moved just before
it, and the older one's line says ``(earlier)`` when both are admitted.  Pure and
deterministic; only the first :data:`WINDOW` candidates are compared (what a section can
admit), and pairs whose term counts differ by more than the allowed change are skipped
before any set arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from persona_mind.mind.facts._updates import MAX_CHANGED, is_update, terms_of
from persona_mind.mind.inject._plan import Cand

__all__ = ("WINDOW", "newer_first")

WINDOW = 12
"""Candidates compared per section: the most a section admits (its cap, 8 at most, plus
room for an update ranked a few places below what it updates)."""


def _terms(cand: Cand) -> Mapping[str, int]:
    """A candidate's index terms with counts, from its index (no re-tokenising)."""
    _, ranked, index = cand
    slot = index.slot_of.get(ranked.fact.id)
    if slot is None:  # a pseudo-fact built for one plan (session notes): tokenise it
        return terms_of(ranked.fact.text)
    return dict(index.tokens[slot])


def newer_first(cands: Sequence[Cand]) -> tuple[list[Cand], dict[str, str]]:
    """(the candidates with each update moved before what it updates, older id → newer id)."""
    head = list(cands[:WINDOW])
    if len(head) < 2:
        return list(cands), {}
    facts = [c[1].fact for c in head]
    sizes: list[int] = []
    for cand in head:
        _, ranked, index = cand
        slot = index.slot_of.get(ranked.fact.id)
        sizes.append(index.lengths[slot] if slot is not None else -1)
    terms: dict[int, tuple[Mapping[str, int], frozenset[str]]] = {}

    def terms_at(k: int) -> tuple[Mapping[str, int], frozenset[str]]:
        got = terms.get(k)
        if got is None:
            counts = _terms(head[k])
            got = terms[k] = (counts, frozenset(counts))
        return got

    earlier: dict[str, str] = {}
    newer_of: dict[int, int] = {}
    # Cost (issue 24 item 6): a turn compares ~45 pairs per section and almost none is an
    # update, so the cheap tests run over plain lists, and a pair whose distinct terms
    # already differ by more than MAX_CHANGED on one side (each such term adds at least 1
    # to what that side added or dropped) is refused by one set intersection in C before
    # ``is_update`` counts terms in Python.
    kinds = [f.kind for f in facts]
    times = [f.recordedAt for f in facts]
    span = range(len(facts))
    for i, older in enumerate(facts):
        kind, at, size = kinds[i], times[i], sizes[i]
        later = [  # recorded later (so never i itself), same kind, a size within reach
            j
            for j in span
            if times[j] > at
            and kinds[j] == kind
            and (size < 0 or sizes[j] < 0 or abs(size - sizes[j]) <= MAX_CHANGED)
        ]
        if not later:
            continue
        old_counts, old_keys = terms_at(i)
        best = -1
        for j in later:  # index order, as the tie-break on equal times expects
            new_counts, new_keys = terms_at(j)
            common = len(new_keys & old_keys)
            if len(new_keys) - common > MAX_CHANGED or len(old_keys) - common > MAX_CHANGED:
                continue
            if is_update(new_counts, old_counts) and (best < 0 or times[j] > times[best]):
                best = j
        if best >= 0:
            newer_of[i] = best
            earlier[older.id] = facts[best].id
    if not newer_of:
        return list(cands), {}
    out: list[Cand] = []
    placed: set[int] = set()
    for i, cand in enumerate(head):
        if i in placed:
            continue
        up = newer_of.get(i)
        if up is not None and up not in placed:
            out.append(head[up])  # the update goes just above what it updates
            placed.add(up)
        out.append(cand)
        placed.add(i)
    return out + list(cands[WINDOW:]), earlier
