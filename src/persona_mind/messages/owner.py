"""The Owner's protocol: session identity, lifecycle generations, the active persona, and
the values it keeps for the Companion's features (the notes' tally, the chat plans, the
Persona half's session — the last opaque here: it is Persona's domain state)."""

from __future__ import annotations

from typing import Any

import msgspec

from persona_mind.messages._base import Ask, Msg
from persona_mind.messages.host import ModelSelect, SessionShutdown, SessionStart

__all__ = (
    "DropPlans",
    "GetNotesTally",
    "GetOwner",
    "GetPersonaSession",
    "GetSessionStart",
    "IssuePlan",
    "ListPlans",
    "NotesTally",
    "OwnerChanged",
    "OwnerMsg",
    "OwnerState",
    "Plan",
    "PutNotesTally",
    "PutPersonaSession",
    "SetActivePersona",
    "SetWorkspace",
    "Subscribe",
    "TakePlan",
)


class OwnerState(msgspec.Struct, frozen=True, kw_only=True):
    """Who owns memory right now, and under which generation work is admitted.

    ``identity`` is host session manager + session id + session file (M-SCOPE); the
    generation bumps on every session, persona, team or workspace change.
    """

    generation: int
    session_manager: str | None = None
    session_id: str | None = None
    session_file: str | None = None
    origin_session_id: str | None = None
    cwd: str | None = None
    active_persona: str | None = None
    reason: str = "initial"

    @property
    def identity(self) -> tuple[str | None, str | None, str | None]:
        return (self.session_manager, self.session_id, self.session_file)

    @property
    def ready(self) -> bool:
        return self.session_id is not None


class NotesTally(msgspec.Struct, frozen=True, kw_only=True):
    """The lifetime budget of one session's notes as the Owner holds it (M-SESSION-NOTES-4,
    -14): every event id seen on any branch with its size, and why notes closed, if they
    did. A restarted Companion's ledger absorbs it, so events seen only on other branches
    of a session without a file still count."""

    session_id: str
    seen: tuple[tuple[str, int], ...] = ()
    closed: str | None = None


class Plan(msgspec.Struct, frozen=True, kw_only=True):
    """One issued Persona chat plan (P-CHAT-PLAN-4..9): an immutable value the Owner keeps.

    ``params`` are the tool arguments the plan will carry out, as sorted pairs so the value
    stays immutable; :attr:`args` hands out a fresh dict.
    """

    plan_id: str
    session_id: str
    action: str
    params: tuple[tuple[str, Any], ...] = ()
    digest: str
    summary: str
    shown_at: int
    """The session's user-message count when the plan was shown."""
    reload: bool = False

    @property
    def args(self) -> dict[str, Any]:
        return dict(self.params)


class IssuePlan(Ask[Plan], frozen=True, kw_only=True):
    """Register a plan the Persona half just showed; answered with it (the oldest of the
    session's plans beyond the per-session cap is forgotten)."""

    plan: Plan


class TakePlan(Ask[Plan], frozen=True, kw_only=True):
    """Confirm a plan: answered with it and marked used when it was issued here, for this
    session, is unused and the user replied since it was shown; refused (``PlanRefused``)
    otherwise — a refusal for want of a reply leaves the plan in place."""

    plan_id: str
    session_id: str
    user_messages: int


class DropPlans(Ask[int], frozen=True, kw_only=True):
    """Cancel a session's plans (all, or those whose action starts with ``action_prefix``);
    answered with how many were dropped."""

    session_id: str
    action_prefix: str | None = None


class ListPlans(Ask[tuple[Plan, ...]], frozen=True, kw_only=True):
    """The session's outstanding plans, oldest first."""

    session_id: str


class GetSessionStart(Ask[SessionStart | None], frozen=True, kw_only=True):
    """The current session's start as the Owner recorded it (its branch entries dropped —
    they are read from the host again — and ``model`` following ``ModelSelect``), so a
    restarted Companion's features resume the session; ``None`` between sessions."""


class GetPersonaSession(Ask[object], frozen=True, kw_only=True):
    """The Persona half of the current session as the Owner holds it (``None``: none yet).

    The value is a ``persona.PersonaSession``, domain state the Owner keeps for the Persona
    half without reading it: opaque here (messages name no domain type); the Persona
    feature checks it."""


class PutPersonaSession(Ask[None], frozen=True, kw_only=True):
    """Replace the held Persona session (active persona, team snapshot in use, counters,
    pending hand-off); ``None`` forgets it. Never bumps the generation by itself: an
    identity change is ``SetActivePersona``."""

    session: object
    """A ``persona.PersonaSession``, or ``None`` (see :class:`GetPersonaSession`)."""


class GetNotesTally(Ask[NotesTally | None], frozen=True, kw_only=True):
    """The session notes' lifetime budget as the Owner holds it (``None``: none yet)."""


class PutNotesTally(Ask[None], frozen=True, kw_only=True):
    """Replace the held session-notes tally (Mind sends it after every change)."""

    tally: NotesTally | None


class GetOwner(Ask[OwnerState], frozen=True, kw_only=True):
    """Ask for the current :class:`OwnerState`."""


class SetActivePersona(Ask[OwnerState], frozen=True, kw_only=True):
    """The active persona changed (pack-qualified id, or ``None``); bumps the generation."""

    persona: str | None


class SetWorkspace(Ask[OwnerState], frozen=True, kw_only=True):
    """The workspace (cwd / project) changed; bumps the generation."""

    cwd: str


class Subscribe(Ask[OwnerState], frozen=True, kw_only=True):
    """Register an actor ref for :class:`OwnerChanged` broadcasts; answered with the state."""

    ref: Any


class OwnerChanged(Msg, frozen=True, kw_only=True):
    """Broadcast after every generation bump."""

    state: OwnerState


OwnerMsg = (
    SessionStart
    | SessionShutdown
    | ModelSelect
    | GetSessionStart
    | GetOwner
    | SetActivePersona
    | SetWorkspace
    | Subscribe
    | IssuePlan
    | TakePlan
    | DropPlans
    | ListPlans
    | GetPersonaSession
    | PutPersonaSession
    | GetNotesTally
    | PutNotesTally
)
