"""The Owner's protocol: session identity, lifecycle generations, the active persona."""

from __future__ import annotations

from typing import Any

import msgspec

from persona_mind.messages._base import Ask, Msg
from persona_mind.messages.host import SessionShutdown, SessionStart

__all__ = (
    "GetOwner",
    "OwnerChanged",
    "OwnerMsg",
    "OwnerState",
    "SetActivePersona",
    "SetWorkspace",
    "Subscribe",
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


OwnerMsg = SessionStart | SessionShutdown | GetOwner | SetActivePersona | SetWorkspace | Subscribe
