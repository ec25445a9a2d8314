"""Updates in a section's candidate order: the newer fact first, the older marked earlier.

Why: when a later fact changes a value of an earlier one (a port, a version, a reversed
decision), a block that shows the old value first, or the two unmarked, leaves the model to
guess which holds.  Among a section's ranked candidates, a fact that updates another
(:func:`~persona_mind.mind.facts._updates.is_update`, recorded later) is moved just before
it, and the older one's line says ``(earlier)`` when both are admitted.  Pure and
deterministic; only the first :data:`WINDOW` candidates are compared (what a section can
admit), and pairs whose term counts differ by more than the allowed change are skipped
before any set arithmetic.

Cost (issue 24 item 6): the pairs of a window were compared again on every turn, each
fact's terms copied into a dict and a set first — ~130 µs of a 1,000-fact turn's ~830 µs.
What a window's comparison depends on (the facts in its slots) never changes for one
index (an index is rebuilt or updated into a new object on a write; a slot's fact is
fixed), so each index memoises its facts' term sets and the update pairs of the windows
it has been asked about (:class:`_Memo`, weakly keyed by the index, bounded).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from persona_mind.mind.facts._updates import MAX_CHANGED, is_update, terms_of
from persona_mind.mind.inject._plan import Cand

if TYPE_CHECKING:
    from persona_mind.mind.recall._retrieval import FactIndex

__all__ = ("WINDOW", "newer_first")

WINDOW = 12
"""Candidates compared per section: the most a section admits (its cap, 8 at most, plus
room for an update ranked a few places below what it updates)."""

MEMO_WINDOWS = 256
"""Windows remembered per index; past that the memo starts again (a session's prompts
keep meeting the same top facts, so a few hundred windows cover it)."""

Terms = tuple[Mapping[str, int], frozenset[str]]
"""A fact's index terms with counts, and their set."""


class _Memo:
    """One index's term sets by slot and update pairs by window (slots of the window →
    (older position, newer position) pairs)."""

    __slots__ = ("terms", "windows")

    def __init__(self) -> None:
        self.terms: dict[int, Terms] = {}
        self.windows: dict[tuple[int, ...], tuple[tuple[int, int], ...]] = {}


_MEMOS: weakref.WeakKeyDictionary[FactIndex, _Memo] = weakref.WeakKeyDictionary()


def _memo(index: FactIndex) -> _Memo:
    memo = _MEMOS.get(index)
    if memo is None:
        memo = _MEMOS[index] = _Memo()
    return memo


def _terms(cand: Cand, slot: int | None) -> Terms:
    """A candidate's index terms with counts, from its index (no re-tokenising)."""
    _, ranked, index = cand
    if slot is None:  # a pseudo-fact built for one plan (session notes): tokenise it
        counts: Mapping[str, int] = terms_of(ranked.fact.text)
        return counts, frozenset(counts)
    memo = _memo(index)
    got = memo.terms.get(slot)
    if got is None:
        counts = dict(index.tokens[slot])
        got = memo.terms[slot] = (counts, frozenset(counts))
    return got


def _pairs(head: Sequence[Cand], slots: Sequence[int | None]) -> tuple[tuple[int, int], ...]:
    """(older position, newer position) for each fact of ``head`` that a later one updates
    (the latest-recorded updater; the first in window order among equal times)."""
    facts = [c[1].fact for c in head]
    sizes = [
        c[2].lengths[slot] if slot is not None else -1 for c, slot in zip(head, slots, strict=True)
    ]
    terms: dict[int, Terms] = {}

    def terms_at(k: int) -> Terms:
        got = terms.get(k)
        if got is None:
            got = terms[k] = _terms(head[k], slots[k])
        return got

    found: list[tuple[int, int]] = []
    # a turn compares ~45 pairs per section and almost none is an update, so the cheap
    # tests run over plain lists, and a pair whose distinct terms already differ by more
    # than MAX_CHANGED on one side (each such term adds at least 1 to what that side added
    # or dropped) is refused by one set intersection in C before ``is_update`` counts terms
    kinds = [f.kind for f in facts]
    times = [f.recordedAt for f in facts]
    span = range(len(facts))
    for i in span:
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
            found.append((i, best))
    return tuple(found)


def _window_pairs(head: Sequence[Cand]) -> tuple[tuple[int, int], ...]:
    """:func:`_pairs` for ``head``, memoised per index when the whole window is one index's."""
    slots = [c[2].slot_of.get(c[1].fact.id) for c in head]
    index = head[0][2]
    if any(s is None for s in slots) or any(c[2] is not index for c in head):
        return _pairs(head, slots)  # notes' pseudo-facts, or LTM's two tiers: not memoised
    key = tuple(s for s in slots if s is not None)
    windows = _memo(index).windows
    got = windows.get(key)
    if got is None:
        if len(windows) >= MEMO_WINDOWS:
            windows.clear()
        got = windows[key] = _pairs(head, slots)
    return got


def newer_first(cands: Sequence[Cand]) -> tuple[list[Cand], dict[str, str]]:
    """(the candidates with each update moved before what it updates, older id → newer id)."""
    head = list(cands[:WINDOW])
    if len(head) < 2:
        return list(cands), {}
    pairs = _window_pairs(head)
    if not pairs:
        return list(cands), {}
    newer_of = dict(pairs)
    earlier = {head[i][1].fact.id: head[j][1].fact.id for i, j in pairs}
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
