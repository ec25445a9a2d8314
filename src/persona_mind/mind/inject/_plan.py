"""The injection plan's value types and budget constants: what the planner takes and gives.

Why a module of its own: the input, the plan and the limits are what callers (the session,
the notes ledger, the recall harness) name; the planner's ranking, allocation and line
rendering are its internals (:mod:`persona_mind.mind.inject._planner` re-exports these names).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from persona_mind.mind._model import BacklogItem, Tier
from persona_mind.mind.recall._excerpts import EXCERPT_CHARS
from persona_mind.mind.recall._fusion import Fusion
from persona_mind.mind.recall._ranker import LEXICAL, RankerStatus, Semantic
from persona_mind.mind.recall._retrieval import PRIORITY_KINDS, FactIndex, Ranked

Cand = tuple[str, Ranked, FactIndex]
"""(section label, ranked fact, its index): one line candidate, rendered only if admitted."""

SectionTrace = tuple[str, int, tuple[Cand, ...], tuple[Cand, ...]]
"""(section key, cap, candidates in admission order, candidates below the floor)."""

TOTAL_TOKENS = 2_400
NOTES_TOKENS = 600
PRIORITY_SLOTS = 2
CAPS: Mapping[str, int] = {"ltm": 8, "project": 4, "stm": 5, "backlog": 6}
LABEL = {
    "notes": "session notes",
    "ltm": "persona/shared LTM",
    "project": "project LTM",
    "stm": "STM",
    "backlog": "backlog",
}
"""Each section key's name in disclosures and the omission notice."""


@dataclass(frozen=True, slots=True)
class NoteView:
    """A replayed session note as the planner sees it."""

    note_id: str
    text: str
    kind: str = "note"
    saved_at: float = 0.0


@dataclass(frozen=True, slots=True)
class InjectionInput:
    """Everything the planner needs; build it from store snapshots and the notes ledger."""

    prompt: str
    now: float
    indexes: Mapping[Tier, FactIndex] = field(default_factory=dict)
    backlog: Sequence[BacklogItem] = ()
    notes: Sequence[NoteView] = ()
    lean: bool = False
    total_tokens: int = TOTAL_TOKENS
    """The whole block's budget; the seed's 2,400 (only the recall harness varies it)."""
    caps: Mapping[str, int] = field(default_factory=lambda: dict(CAPS))
    """Entry caps per section; the seed's 8/4/5/6 (only the recall harness varies them)."""
    persona: str | None = None
    semantic: Semantic | None = None
    """The prompt's similarity to facts (the model edge); ``None`` ranks lexically."""
    ranker: RankerStatus = LEXICAL
    """Which ranker this is, for the plan's disclosures (a lexical fallback says why)."""
    fusion: Fusion = "score"


class PlannedItem:
    """One admitted entry: where it came from and why it ranked (explained on demand)."""

    __slots__ = ("_ranked", "id", "section")

    def __init__(self, section: str, ranked: Ranked) -> None:
        self.section = section
        self.id = ranked.fact.id
        self._ranked = ranked

    @property
    def reason(self) -> str:
        return self._ranked.reason

    @property
    def pinned(self) -> bool:
        """Whether this entry is of a pinned kind (objective, invariant)."""
        return self._ranked.fact.kind in PRIORITY_KINDS

    def __repr__(self) -> str:
        return f"PlannedItem({self.section!r}, {self.id!r}, {self.reason!r})"


@dataclass(frozen=True, slots=True)
class InjectionPlan:
    """The block to inject (``""`` when there is nothing) and an account of what was left out."""

    text: str
    tokens: int
    items: tuple[PlannedItem, ...]
    omitted: Mapping[str, int]
    clipped: int
    unsafe: int
    ranker: RankerStatus = LEXICAL
    prompt: str = ""
    trace: tuple[SectionTrace, ...] = ()
    """Each section's candidates, admitted or not, for :meth:`explain` (computed on demand)."""

    @property
    def below_floor(self) -> int:
        """How many ranked facts the relevance floor left out."""
        return sum(len(t[3]) for t in self.trace)

    @property
    def disclosures(self) -> tuple[str, ...]:
        out = [f"{n} {LABEL[k]} omitted" for k, n in self.omitted.items() if n]
        if self.below_floor and not any(i.section != "notes" and not i.pinned for i in self.items):
            out.append(
                "nothing above the relevance floor: "
                + ("only pinned lines shown" if self.items else "memory block omitted")
            )
        if not self.ranker.hybrid and self.ranker.reason:
            out.append(f"ranking: {self.ranker.describe()}")
        if self.clipped:
            out.append(f"{self.clipped} excerpt(s) clipped to {EXCERPT_CHARS} characters")
        if self.unsafe:
            out.append(f"{self.unsafe} entr(ies) withheld by the content scanner")
        return tuple(out)
