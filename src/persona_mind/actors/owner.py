"""The Owner actor: session identity and lifecycle generations.

Every session start (startup, reload, new, resume, fork), persona change or workspace
change starts a new generation (``ActorSystem.advance_generation`` — the Owner is its only
caller) and is broadcast as ``OwnerChanged`` to every subscriber. The kernel stamps the
generation on every envelope and drops stale ones, so work admitted under an older
generation can never touch a replaced session (M-SCOPE, ARCHITECTURE "Generations").

Restart contract (docs/actors.md): the Owner checkpoints its state and subscribers after
every change, so a restarted Owner keeps the identity, cwd, active persona and
subscribers, and the generation never goes backwards (the counter lives in the system).
The message being handled when it crashed is failed with ``ActorStopped``; queued asks
are failed too and the caller retries.
"""

from __future__ import annotations

from typing import Any, assert_never

import msgspec

from persona_mind.actors import Actor, ActorRef
from persona_mind.messages.host import SessionShutdown, SessionStart
from persona_mind.messages.owner import (
    GetOwner,
    OwnerChanged,
    OwnerMsg,
    OwnerState,
    SetActivePersona,
    SetWorkspace,
    Subscribe,
)

__all__ = ("OwnerActor",)


class OwnerActor(Actor[OwnerMsg]):
    """Holds the :class:`OwnerState` and broadcasts every change."""

    def __init__(self) -> None:
        self.state = OwnerState(generation=0)
        self.subscribers: tuple[ActorRef[Any], ...] = ()

    async def on_start(self) -> None:
        saved = self.recovered
        if isinstance(saved, tuple):  # (state, subscribers) of the previous incarnation
            self.state, self.subscribers = saved
        self.state = msgspec.structs.replace(self.state, generation=self.system.generation)

    async def receive(self, message: OwnerMsg) -> OwnerState:
        match message:
            case SessionStart():
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
                return self._advance(session_id=None, session_file=None, reason="session_shutdown")
            case GetOwner():
                return self.state
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
                    self.checkpoint((self.state, self.subscribers))
                return self.state
            case _:
                assert_never(message)

    def _advance(self, **changes: Any) -> OwnerState:
        generation = self.system.advance_generation()
        self.state = msgspec.structs.replace(self.state, generation=generation, **changes)
        self.checkpoint((self.state, self.subscribers))
        for ref in self.subscribers:
            ref.tell_if_alive(OwnerChanged(state=self.state))
        return self.state
