"""Per-session Persona state: context, team scope, active persona, direct-command names.

Pure values and small pure functions. :class:`SessionState` is immutable: a handler that
changes it stores a new value in the service. In the runtime the Owner actor holds the
session's :class:`PersonaSession` (this state, the team snapshot in use and the context
counters); the Persona feature reads it from the Owner when it starts and sends every
change back, so a restarted Companion resumes exactly where the last one stopped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from persona_mind.messages.host import CustomEntry
from persona_mind.persona.binding._team_binding import BindingRecord
from persona_mind.persona.packs._model import Pack
from persona_mind.persona.packs._names import is_valid_slug

__all__ = (
    "ACTIVE_ENTRY",
    "RESERVED_COMMANDS",
    "ActivePersona",
    "Handoff",
    "PersonaSession",
    "ScopeState",
    "SessionContext",
    "SessionState",
    "TeamScope",
    "alias_names",
    "restore_active",
)

ACTIVE_ENTRY = "persona-active"
"""Custom-entry type that persists the active persona on the session branch."""

RESERVED_COMMANDS: frozenset[str] = frozenset(
    {
        # ours and Mind's (AMB-15)
        "persona", "persona-list", "persona-roundtable", "persona-mind", "mind",
        # Pi built-ins a persona must never shadow
        "help", "model", "new", "resume", "fork", "clone", "tree", "reload", "clear",
        "compact", "quit", "exit", "settings", "login", "logout", "session", "copy",
        "export", "share", "hotkeys", "changelog", "name", "scoped-models", "debug",
    }
)  # fmt: skip

ScopeState = Literal["bound", "none", "unbound", "missing-bound", "migration-required", "legacy"]


@dataclass(slots=True)
class SessionContext:
    """What the caller (the Owner) knows about the session for one call.

    ``user_messages`` counts the user's messages so far (interactive ``Input`` events);
    ``branch`` is any token that changes when the conversation moves to another branch
    (for example the ``SessionTree`` leaf id); ``idle`` is whether the host is idle now.
    """

    session_id: str
    cwd: Path
    user_messages: int = 0
    branch: str | None = None
    idle: bool = True
    other_commands: frozenset[str] = frozenset()
    """Command names other extensions registered (aliases never shadow them)."""


@dataclass(frozen=True, slots=True)
class TeamScope:
    """The session's team as resolved at open/refresh/switch."""

    state: ScopeState
    pack: Pack | None = None
    record: BindingRecord | None = None
    note: str = ""

    @property
    def runnable(self) -> bool:
        """Whether personas may run (never while migration is required, P-MIGRATE-2)."""
        return self.pack is not None and self.state in {"bound", "legacy"}


@dataclass(frozen=True, slots=True)
class ActivePersona:
    """The selected persona of a session (explicit and clearable, P-ACTIVE-12)."""

    name: str
    identity: str
    pack_ref: str
    revision: str

    def entry(self) -> dict[str, Any]:
        """The custom-entry payload that persists this selection on the branch."""
        return {
            "persona": self.name,
            "identity": self.identity,
            "pack": self.pack_ref,
            "revision": self.revision,
        }


@dataclass(frozen=True, slots=True)
class Handoff:
    """An approved team switch / rollback waiting for the `/persona` command path."""

    handoff_id: str
    plan_id: str
    action: str
    args: dict[str, Any]
    digest: str
    branch: str | None


@dataclass(frozen=True, slots=True)
class SessionState:
    """Everything the service holds for one session (immutable: replace to change)."""

    session_id: str
    cwd: Path
    scope: TeamScope
    active: ActivePersona | None = None
    aliases: frozenset[str] = frozenset()
    handoff: Handoff | None = None
    stale_names: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class PersonaSession:
    """The Persona half of one session as the Owner holds it (ARCHITECTURE: the Owner owns
    the active persona and the team binding and snapshot in use).

    ``state`` is the service's :class:`SessionState` (team scope with the snapshot in use,
    active persona, aliases, an approved hand-off), ``None`` until the session opened; the
    context counters are what a :class:`SessionContext` is rebuilt from (the user-message
    count that confirms plans, the branch, idleness); the rest is the feature's pending
    work (a hand-off or reload waiting for idle) and why the session is disabled.
    """

    session_id: str
    cwd: str
    user_messages: int = 0
    branch: str | None = None
    idle: bool = True
    other_commands: frozenset[str] = frozenset()
    state: SessionState | None = None
    handoff: str | None = None
    reload_pending: bool = False
    disabled: str | None = None
    backend_error: str | None = None

    @classmethod
    def of(cls, ctx: SessionContext, state: SessionState | None, **pending: Any) -> PersonaSession:
        """The value for ``ctx`` (a mutable per-call view) and the session's state."""
        return cls(
            session_id=ctx.session_id,
            cwd=str(ctx.cwd),
            user_messages=ctx.user_messages,
            branch=ctx.branch,
            idle=ctx.idle,
            other_commands=ctx.other_commands,
            state=state,
            **pending,
        )

    def context(self) -> SessionContext:
        """A fresh per-call context carrying the held counters."""
        return SessionContext(
            session_id=self.session_id,
            cwd=Path(self.cwd),
            user_messages=self.user_messages,
            branch=self.branch,
            idle=self.idle,
            other_commands=self.other_commands,
        )


def alias_names(pack: Pack | None, taken: Iterable[str] = ()) -> frozenset[str]:
    """Direct ``/<persona>`` names: the team's personas minus reserved or colliding ones."""
    if pack is None:
        return frozenset()
    blocked = RESERVED_COMMANDS | frozenset(taken)
    return frozenset(
        p.name for p in pack.personas if p.name not in blocked and is_valid_slug(p.name)
    )


def restore_active(entries: Sequence[CustomEntry], scope: TeamScope) -> ActivePersona | None:
    """The last persisted selection on the branch, if it still fits the session's team."""
    last: dict[str, Any] | None = None
    for entry in entries:
        if entry.custom_type == ACTIVE_ENTRY and isinstance(entry.data, dict):
            last = entry.data
    if not last or not last.get("persona") or not scope.runnable or scope.pack is None:
        return None
    pack = scope.pack
    name = str(last["persona"])
    if last.get("pack") != pack.ref or pack.persona(name) is None:
        return None
    identity = f"{pack.source}/{pack.name}/{name}"
    return ActivePersona(name=name, identity=identity, pack_ref=pack.ref, revision=pack.digest)
