"""Fitting ranked lines into the block's byte budget, fairly across sections.

Why a module of its own: the budget rules (caps, a shared byte limit, session notes' own
cap, whole lines only, room for the omission notice) are the planner's hardest part and
are tested through the block they produce; ranking and line text are inputs here.
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from persona_mind.mind._model import Fact
from persona_mind.mind.inject._lines import Heading, entry_line, nbytes, omission_notice
from persona_mind.mind.inject._newer import newer_first
from persona_mind.mind.inject._plan import Cand, PlannedItem
from persona_mind.mind.inject._shown_ids import prefix_counts, shown
from persona_mind.mind.recall._excerpts import excerpts_of
from persona_mind.mind.recall._retrieval import FactIndex


@dataclass(slots=True)
class Budget:
    """The whole block's running account: bytes used of the limit, the lines and items
    admitted in block order, and what was omitted, clipped or withheld."""

    used: int
    limit: int
    prefixes: Sequence[Counter[str]] = ()
    """Live ids by shown prefix for every index of the plan: shown ids are unique across tiers."""
    lines: list[str] = field(default_factory=list)
    items: list[PlannedItem] = field(default_factory=list)
    omitted: dict[str, int] = field(default_factory=dict)
    clipped: int = 0
    unsafe: int = 0


@dataclass(slots=True)
class Section:
    """One block section being filled: its ranked candidates, cap and what was admitted.

    ``groups`` maps each heading in use to its admitted (line, item) pairs, in the order
    the headings were first used; a heading costs budget only with its first line.
    """

    key: str
    heading: Heading
    cands: Sequence[Cand]
    cap: int
    total: int
    byte_cap: int | None = None
    earlier: dict[str, str] = field(default_factory=dict)
    """Older fact id → the id of the candidate that updates it (see :mod:`._newer`)."""
    pos: int = 0
    used: int = 0
    groups: dict[str, list[tuple[str, PlannedItem]]] = field(default_factory=dict)
    items: list[PlannedItem] = field(default_factory=list)


_Lines = dict[tuple[str, str, str, bool], tuple[Fact, str, bool, int]]
_LINES: weakref.WeakKeyDictionary[FactIndex, _Lines] = weakref.WeakKeyDictionary()
"""Each index's entry lines by (fact id, label, shown id, marked): (fact, line, clipped, bytes)."""


def _line(
    label: str, fact: Fact, ident: str, index: FactIndex, marked: bool
) -> tuple[str, bool, int]:
    """(:func:`entry_line`'s line and clip, the line's size in bytes), memoised per index:
    a turn's entries are mostly the last turn's, and each was rebuilt and its UTF-8 size
    counted on every turn.  The memo holds the fact it was made from and is used only for
    that very row (an index never changes its rows; a write makes a new index)."""
    memo = _LINES.get(index)
    if memo is None:
        memo = _LINES[index] = {}
    key = (fact.id, label, ident, marked)
    got = memo.get(key)
    if got is None or got[0] is not fact:
        line, clipped = entry_line(label, fact, ident, excerpts_of(index), earlier=marked)
        got = memo[key] = (fact, line, clipped, nbytes(line))
    return got[1], got[2], got[3]


def _admit_next(budget: Budget, sec: Section) -> bool:
    """Admit this section's next candidate that is safe and fits whole; False if none."""
    while sec.pos < len(sec.cands) and len(sec.items) < sec.cap:
        label, ranked, index = sec.cands[sec.pos]
        sec.pos += 1
        fact = ranked.fact
        if not index.is_safe(fact):
            budget.unsafe += 1
            continue
        ident = shown(fact.id, budget.prefixes)
        newer = sec.earlier.get(fact.id)
        marked = newer is not None and any(it.id == newer for it in sec.items)
        line, clipped, size = _line(label, fact, ident, index, marked)
        heading = sec.heading(label, fact)
        group = sec.groups.get(heading)
        cost = size + (nbytes(f"## {heading}\n") if group is None else 0)
        if budget.used + cost > budget.limit:
            continue
        if sec.byte_cap is not None and sec.used + cost > sec.byte_cap:
            continue
        budget.used += cost
        sec.used += cost
        item = PlannedItem(sec.key, ranked)
        sec.groups.setdefault(heading, []).append((line, item))
        sec.items.append(item)
        budget.clipped += int(clipped)
        return True
    return False


def _allocate(budget: Budget, sections: Sequence[Section]) -> None:
    """Round-robin over sections, one admitted line each per round, in rank order.

    Why round-robin: the budget is shared, and filling sections one after another would let
    long persona memories starve the project, STM and backlog sections.  Within a section
    rank order is kept (per heading, when a section has several); a line that does not fit
    whole is skipped, never cut.
    """
    # A section that admits nothing in a round never admits again (its candidates are
    # walked to the end or its cap is reached, and neither goes back), so each round asks
    # only the sections still admitting, in the same order: the same lines, fewer calls.
    active = list(sections)
    while active:
        active = [sec for sec in active if _admit_next(budget, sec)]
    for sec in sections:
        for heading, entries in sec.groups.items():
            budget.lines.append(f"## {heading}\n")
            budget.lines += [line for line, _ in entries]
            budget.items += [item for _, item in entries]
        budget.omitted[sec.key] = budget.omitted.get(sec.key, 0) + max(
            0, sec.total - len(sec.items)
        )


def _fill(
    sections: Sequence[Section], room: int, reserve: str, prefixes: Sequence[Counter[str]]
) -> tuple[Budget, str]:
    budget = Budget(used=0, limit=room - nbytes(reserve), prefixes=prefixes)
    fresh = [
        Section(s.key, s.heading, s.cands, s.cap, s.total, s.byte_cap, s.earlier) for s in sections
    ]
    _allocate(budget, fresh)
    return budget, omission_notice(budget.omitted, budget.clipped, budget.unsafe)


def _newer_first(sec: Section) -> Section:
    """The section with each update ranked just above the fact it updates (not the backlog:
    an item's status, not its text, says what changed)."""
    if sec.key == "backlog":
        return sec
    cands, earlier = newer_first(sec.cands)
    if not earlier:
        return sec
    return Section(sec.key, sec.heading, cands, sec.cap, sec.total, sec.byte_cap, earlier)


def fit(sections: Sequence[Section], room: int, indexes: Sequence[FactIndex]) -> tuple[Budget, str]:
    """Admit lines within ``room`` bytes and leave room for the omission notice they need.

    The notice is known only after admission, so room is reserved first for the common
    notice — omissions alone, each count at its bound — and the plan is kept if its actual
    notice fits.  Only when clipping or scanner withholdings make it longer is the plan
    redone with every clause at its bound reserved, which always fits.  Both passes are
    pure, so the block stays deterministic; the common case pays no bytes for clauses it
    never prints (the old single pass always reserved them: ~50 bytes per plan).
    """
    sections = [_newer_first(s) if len(s.cands) > 1 else s for s in sections]
    totals = {s.key: s.total for s in sections}
    # an empty tier shares no prefix with anything: leave it out of every line's lookup
    prefixes = [prefix_counts(i) for i in indexes if len(i)]
    budget, notice = _fill(sections, room, omission_notice(totals, 0, 0), prefixes)
    if budget.used + nbytes(notice) <= room:
        return budget, notice
    bound = sum(totals.values())
    return _fill(sections, room, omission_notice(totals, bound, bound), prefixes)
