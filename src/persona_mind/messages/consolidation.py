"""Consolidation's values: what the Optimizer answers and what a plan or receipt holds.

They live here, in ``messages/``, because the Optimizer's protocol answers them (an
inspected page, a staged plan, an applied receipt, a review report) and messages import only
values. The consolidation *rules* stay in ``mind/optimize/`` (inspect, stage, plans, review),
which re-export these unchanged. All are frozen, so a preview a caller saw is exactly what
is applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from persona_mind.messages.child import ChildUsage
from persona_mind.messages.memory import Fact, Tier

__all__ = (
    "Applied",
    "CandidatePair",
    "Inspection",
    "Omitted",
    "Plan",
    "Replacement",
    "ReviewReport",
    "Status",
    "TargetOutcome",
)


@dataclass(frozen=True, slots=True)
class Replacement:
    """A validated operation: the exact source rows and the row that replaces them."""

    sources: tuple[Fact, ...]
    new: Fact


@dataclass(frozen=True, slots=True)
class Omitted:
    """Rows of the store not offered for consolidation, by reason (M-OPTIMIZE-MANUAL-9)."""

    expired: int = 0
    superseded: int = 0
    foreign: int = 0
    unsafe: int = 0

    @property
    def total(self) -> int:
        return self.expired + self.superseded + self.foreign + self.unsafe


@dataclass(frozen=True, slots=True)
class CandidatePair:
    """Two entries of one page with a high lexical overlap; a hint, never an approval."""

    a: str
    b: str
    score: float


@dataclass(frozen=True, slots=True)
class Inspection:
    """One page of a store's safe entries and the snapshot it was cut from."""

    tier: Tier
    fingerprint: str
    entries: tuple[Fact, ...]
    offset: int
    matched: int
    next_offset: int | None
    omitted: Omitted
    pairs: tuple[CandidatePair, ...]
    newest: Fact | None = None
    """The newest safe entry of the whole store (a review always reserves it)."""


@dataclass(frozen=True, slots=True)
class Plan:
    """A staged, validated consolidation of one store."""

    id: str
    owner: str
    tier: Tier
    store: str
    persona: str | None
    fingerprint: str
    created: float
    expires: float
    replacements: tuple[Replacement, ...]

    @property
    def before(self) -> tuple[Fact, ...]:
        return tuple(s for r in self.replacements for s in r.sources)

    @property
    def after(self) -> tuple[Fact, ...]:
        return tuple(r.new for r in self.replacements)


@dataclass(frozen=True, slots=True)
class Applied:
    """A committed consolidation (or undo): its receipt and the rows before and after.

    ``needs_recovery`` is true when the receipt could not be settled (the store write is
    committed, the receipt stays prepared until reconciled, M-OPTIMIZE-HISTORY-10).
    """

    kind: str
    tier: Tier
    receipt: str
    outcome: str
    needs_recovery: bool
    before: tuple[Fact, ...]
    after: tuple[Fact, ...]
    warnings: tuple[str, ...]


Status = Literal["no-input", "reviewed-no-op", "applied", "refused", "failed"]


@dataclass(frozen=True, slots=True)
class TargetOutcome:
    """What happened to one target (target-qualified, M-OPTIMIZE-BATCH-27)."""

    tier: Tier
    status: Status
    lines: tuple[str, ...]
    applied: Applied | None = None


@dataclass(frozen=True, slots=True)
class ReviewReport:
    """The terminal report of one batch."""

    run_id: str
    model: str
    outcomes: tuple[TargetOutcome, ...]
    not_examined: tuple[Tier, ...] = field(default=())
    usage: ChildUsage = field(default_factory=ChildUsage)
    """What the batch's worker children spent (every attempt, the JSON retry included)."""

    def lines(self) -> tuple[str, ...]:
        u = self.usage
        spent = f" · workers {u.total_tokens:,} tokens" + (f", ${u.cost:.4f}" if u.cost else "")
        out = [f"run {self.run_id} · model {self.model}{spent}"]
        for o in self.outcomes:
            out += [f"[{o.tier}] {o.status}", *(f"  {line}" for line in o.lines)]
        if self.not_examined:
            out.append(f"NOT YET EXAMINED: {', '.join(self.not_examined)}")
        return tuple(out)
