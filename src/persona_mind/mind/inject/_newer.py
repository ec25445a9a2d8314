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


def _terms(cand: Cand) -> tuple[Mapping[str, int], int]:
    """A candidate's index terms with counts, from its index (no re-tokenising), and their total."""
    _, ranked, index = cand
    slot = index.slot_of.get(ranked.fact.id)
    if slot is None:  # a pseudo-fact built for one plan (session notes): tokenise it
        terms = terms_of(ranked.fact.text)
        return terms, terms.total()
    return dict(index.tokens[slot]), index.lengths[slot]


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
    terms: dict[int, Mapping[str, int]] = {}

    def terms_at(k: int) -> Mapping[str, int]:
        got = terms.get(k)
        if got is None:
            got = terms[k] = _terms(head[k])[0]
        return got

    earlier: dict[str, str] = {}
    newer_of: dict[int, int] = {}
    for i, older in enumerate(facts):
        best = -1
        for j, cand_j in enumerate(facts):
            if (
                i == j
                or cand_j.kind != older.kind
                or cand_j.recordedAt <= older.recordedAt
                or (sizes[i] >= 0 and sizes[j] >= 0 and abs(sizes[i] - sizes[j]) > MAX_CHANGED)
            ):
                continue
            if is_update(terms_at(j), terms_at(i)) and (
                best < 0 or cand_j.recordedAt > facts[best].recordedAt
            ):
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
