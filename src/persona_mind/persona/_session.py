"""Per-session Persona state: context, team scope, active persona, direct-command names.

Pure values and small pure functions; the service (owned by the Owner actor) keeps one
:class:`SessionState` per session and is the only writer, so no locks are needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from persona_mind.messages.host import CustomEntry
from persona_mind.persona._binding import BindingRecord
from persona_mind.persona._model import Pack
from persona_mind.persona._names import is_valid_slug

__all__ = (
    "ACTIVE_ENTRY",
    "RESERVED_COMMANDS",
    "ActivePersona",
    "Handoff",
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


@dataclass(slots=True)
class SessionState:
    """Everything the service holds for one session."""

    session_id: str
    cwd: Path
    scope: TeamScope
    active: ActivePersona | None = None
    aliases: frozenset[str] = frozenset()
    handoff: Handoff | None = None
    stale_names: set[str] = field(default_factory=set)


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
