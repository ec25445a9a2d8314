"""What a round-table shows of itself: progress snapshots and the one result (values only).

P-ROUNDTABLE-13, -17, -18: a :class:`RoundtableProgress` names the delegated query, the
context policy, the roster with reasons, the phase and its purpose, each persona's state
and current activity, the next step and the totals — never a child's answer text. The
coordinator that owns a run builds them; the desk, the tool display and the CLI receive
them in messages, so they live in ``messages/`` (which imports nothing from ``runners/``).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from persona_mind.messages.child import ChildUsage

__all__ = (
    "PersonaState",
    "Phase",
    "Position",
    "RoundtableProgress",
    "RoundtableResult",
    "State",
)

Phase = Literal["selection", "independent", "revision", "synthesis", "done", "failed", "cancelled"]
State = Literal["waiting", "running", "done", "failed", "cancelled"]


class PersonaState(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    reason: str
    state: State
    activity: str = ""


class RoundtableProgress(msgspec.Struct, frozen=True, kw_only=True):
    query: str
    context_policy: str
    lead: str
    phase: Phase
    phase_purpose: str
    roster: tuple[PersonaState, ...]
    lead_state: State
    next_step: str
    children_started: int
    children_finished: int
    usage: ChildUsage
    """Running totals: every finished child's usage plus what the running ones reported
    so far (each assistant message's usage as it ends)."""
    elapsed: float
    error: str | None = None
    same_model: str | None = None
    """The one model the lead and every selected specialist run, when they all run one
    (the panel is then not independent); ``None`` when the models differ or are unknown."""


class Position(msgspec.Struct, frozen=True, kw_only=True):
    """One specialist's part in a round-table, as its decision record keeps it.

    ``round1`` and ``final`` are the one-line stances the specialist stated itself (the
    ``Stance:`` line each round asks for; its first line when it gave none). ``adopted``
    is the moderator's structured verdict on whether the decision adopts the final
    position; ``None`` when the moderator did not mark it."""

    name: str
    reason: str
    round1: str
    final: str
    adopted: bool | None
    model: str


class RoundtableResult(msgspec.Struct, frozen=True, kw_only=True):
    """The one moderator synthesis (P-ROUNDTABLE-14), presented in full (-16).

    ``synthesis`` is the moderator's text without its structured verdict block; the fields
    after ``elapsed`` are what the decision record is built from (docs/children.md,
    "Decision records")."""

    query: str
    lead: str
    roster: tuple[tuple[str, str], ...]
    synthesis: str
    children: int
    usage: ChildUsage
    elapsed: float
    run_id: str = ""
    positions: tuple[Position, ...] = ()
    decision: str = ""
    """The decision in one line: the moderator's verdict, else the Decision section."""
    disagreements: str = ""
    uncertainty: str = ""
    lead_model: str = ""
    same_model: str | None = None
    verdict_marked: bool = False
    """Whether the moderator returned a valid verdict block (``adopted`` is known)."""

    @property
    def dissent(self) -> tuple[Position, ...]:
        """Specialists whose final position the decision did not adopt."""
        return tuple(p for p in self.positions if p.adopted is False)
