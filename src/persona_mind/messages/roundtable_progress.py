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

__all__ = ("PersonaState", "Phase", "RoundtableProgress", "RoundtableResult", "State")

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
    elapsed: float
    error: str | None = None


class RoundtableResult(msgspec.Struct, frozen=True, kw_only=True):
    """The one moderator synthesis (P-ROUNDTABLE-14), presented in full (-16)."""

    query: str
    lead: str
    roster: tuple[tuple[str, str], ...]
    synthesis: str
    children: int
    usage: ChildUsage
    elapsed: float
