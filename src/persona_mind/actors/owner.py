"""The Owner actor: session identity, lifecycle generations and the Persona plans.

Every session start (startup, reload, new, resume, fork), persona change or workspace
change starts a new generation (``ActorSystem.advance_generation`` — the Owner is its only
caller) and is broadcast as ``OwnerChanged`` to every subscriber. The kernel stamps the
generation on every envelope and drops stale ones, so work admitted under an older
generation can never touch a replaced session (M-SCOPE, ARCHITECTURE "Generations").

It also holds the runtime's Persona chat plans (an immutable ``PlanBook``): the Persona
feature registers, takes and drops them by message, so a plan shown before a Companion
restart can still be confirmed after it (P-CHAT-PLAN, ARCHITECTURE "the actor system").

Restart contract (docs/actors.md): the Owner checkpoints its state, subscribers and plans
after every change, so a restarted Owner keeps the identity, cwd, active persona,
subscribers and outstanding plans, and the generation never goes backwards (the counter
lives in the system).
The message being handled when it crashed is failed with ``ActorStopped``; queued asks
are failed too and the caller retries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, assert_never

import msgspec

from persona_mind.actors import Actor, ActorRef
from persona_mind.messages.host import ModelSelect, SessionShutdown, SessionStart
from persona_mind.messages.owner import (
    DropPlans,
    GetNotesTally,
    GetOwner,
    GetPersonaSession,
    GetSessionStart,
    IssuePlan,
    ListPlans,
    OwnerChanged,
    OwnerMsg,
    OwnerState,
    PutNotesTally,
    PutPersonaSession,
    SetActivePersona,
    SetWorkspace,
    Subscribe,
    TakePlan,
)

if TYPE_CHECKING:
    from persona_mind.mind import NotesTally
    from persona_mind.persona import PlanBook

__all__ = ("OwnerActor",)


class _Saved(msgspec.Struct, frozen=True):
    """What one incarnation hands the next (``checkpoint`` after every change)."""

    state: OwnerState
    subscribers: tuple[ActorRef[Any], ...]
    plans: PlanBook | None
    persona: object  # the Persona half's session, opaque to the Owner (messages/owner.py)
    start: SessionStart | None
    notes: NotesTally | None


class OwnerActor(Actor[OwnerMsg]):
    """Holds the :class:`OwnerState`, the Persona plan book, and broadcasts every change."""

    def __init__(self) -> None:
        self.state = OwnerState(generation=0)
        self.subscribers: tuple[ActorRef[Any], ...] = ()
        self._plans: PlanBook | None = None  # built at the first plan (imports Persona)
        self.persona: object = None
        """The session's Persona half (a ``persona.PersonaSession``, never read here): active
        persona, team snapshot in use, counters."""
        self.start: SessionStart | None = None
        """The session's start (no entries; the model as last selected)."""
        self.notes: NotesTally | None = None
        """The session notes' lifetime budget (event ids seen on any branch, closed)."""

    async def on_start(self) -> None:
        saved = self.recovered
        if isinstance(saved, _Saved):  # the previous incarnation's state
            self.state, self.subscribers = saved.state, saved.subscribers
            self._plans, self.persona, self.start = saved.plans, saved.persona, saved.start
            self.notes = saved.notes
        self.state = msgspec.structs.replace(self.state, generation=self.system.generation)

    @property
    def plans(self) -> PlanBook:
        """The Persona chat plans of this runtime (P-CHAT-PLAN-4..9)."""
        if self._plans is None:
            from persona_mind.persona import PlanBook  # noqa: PLC0415 - first plan

            self._plans = PlanBook()
        return self._plans

    def _save(self) -> None:
        saved = _Saved(
            self.state, self.subscribers, self._plans, self.persona, self.start, self.notes
        )
        self.checkpoint(saved)

    async def receive(self, message: OwnerMsg) -> object:
        match message:
            case SessionStart():
                self.start = msgspec.structs.replace(message, entries=())
                return self._advance(
                    session_manager=message.session_manager,
                    session_id=message.session_id,
                    session_file=message.session_file,
                    origin_session_id=message.origin_session_id,
                    cwd=message.cwd,
                    active_persona=None,
                    reason=f"session_start:{message.reason}",
                )
            case SessionShutdown():
                self.start = None
                return self._advance(session_id=None, session_file=None, reason="session_shutdown")
            case GetOwner():
                return self.state
            case ModelSelect():
                if self.start is not None and self.start.model != message.model:
                    self.start = msgspec.structs.replace(self.start, model=message.model)
                    self._save()
                return None
            case GetSessionStart():
                return self.start
            case SetActivePersona():
                if message.persona == self.state.active_persona:
                    return self.state
                return self._advance(active_persona=message.persona, reason="persona")
            case SetWorkspace():
                if message.cwd == self.state.cwd:
                    return self.state
                return self._advance(cwd=message.cwd, reason="workspace")
            case Subscribe():  # answered with the state now; later changes are broadcast
                if message.ref not in self.subscribers:
                    self.subscribers = (*self.subscribers, message.ref)
                    self._save()
                return self.state
            case IssuePlan():
                self._plans = self.plans.issue(message.plan)
                self._save()
                return message.plan
            case TakePlan():  # a refusal (PlanRefused) goes back to the asker
                self._plans, plan = self.plans.take(
                    message.plan_id, message.session_id, message.user_messages
                )
                self._save()
                return plan
            case DropPlans():
                self._plans, dropped = self.plans.drop(message.session_id, message.action_prefix)
                if dropped:
                    self._save()
                return dropped
            case ListPlans():
                return self.plans.outstanding(message.session_id)
            case GetPersonaSession():
                return self.persona
            case GetNotesTally():
                return self.notes
            case PutNotesTally():
                if message.tally != self.notes:
                    self.notes = message.tally
                    self._save()
                return None
            case PutPersonaSession():
                if message.session is not self.persona:
                    self.persona = message.session
                    self._save()
                return None
            case _:
                assert_never(message)

    def _advance(self, **changes: Any) -> OwnerState:
        generation = self.system.advance_generation()
        self.state = msgspec.structs.replace(self.state, generation=generation, **changes)
        self._save()
        for ref in self.subscribers:
            ref.tell_if_alive(OwnerChanged(state=self.state))
        return self.state
