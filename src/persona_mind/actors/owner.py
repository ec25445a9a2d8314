"""The Owner actor: session identity and lifecycle generations.

Every session start (startup, reload, new, resume, fork), persona change or workspace
change bumps the generation and is broadcast as ``OwnerChanged``; actors that receive it
adopt the new generation, so work admitted under an older one is dropped by the kernel
before it can touch a replaced session (M-SCOPE, ARCHITECTURE "Generations").
"""

from __future__ import annotations

from typing import Any

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
        self.subscribers: list[ActorRef[Any]] = []

    async def receive(self, message: OwnerMsg) -> object:
        match message:
            case SessionStart():
                return self._bump(
                    session_manager=message.session_manager,
                    session_id=message.session_id,
                    session_file=message.session_file,
                    origin_session_id=message.origin_session_id,
                    cwd=message.cwd,
                    active_persona=None,
                    reason=f"session_start:{message.reason}",
                )
            case SessionShutdown():
                return self._bump(session_id=None, session_file=None, reason="session_shutdown")
            case GetOwner():
                return self.state
            case SetActivePersona():
                if message.persona == self.state.active_persona:
                    return self.state
                return self._bump(active_persona=message.persona, reason="persona")
            case SetWorkspace():
                if message.cwd == self.state.cwd:
                    return self.state
                return self._bump(cwd=message.cwd, reason="workspace")
            case Subscribe():
                self.subscribers.append(message.ref)
                message.ref.tell(OwnerChanged(state=self.state))
                return self.state

    def _bump(self, **changes: Any) -> OwnerState:
        import msgspec  # noqa: PLC0415 - tiny, already imported by the messages

        self.state = msgspec.structs.replace(
            self.state, generation=self.state.generation + 1, **changes
        )
        self.generation = self.state.generation
        for ref in self.subscribers:
            ref.tell_if_alive(OwnerChanged(state=self.state))
        return self.state
