"""What a Persona handler returns: the host-facing result plus effects for the Owner.

Handlers stay host-neutral and actor-free; the Owner applies :class:`Effects` through the
host port and its own state (generation bumps, command re-registration, reloads).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from persona_mind.messages.host import CommandResult, ToolResult

__all__ = ("CommandOutcome", "Effects", "ToolOutcome")


@dataclass(frozen=True, slots=True)
class Effects:
    """Side effects the Owner performs after a handler returns."""

    user_message: str | None = None
    """Send this as a real user message now (a persona command with a query, P-ACTIVE-6)."""
    entries: tuple[tuple[str, dict[str, Any]], ...] = ()
    """``host.append_entry(custom_type, data)`` for each (the active persona on the branch)."""
    commands_changed: bool = False
    """Re-register commands: ``host.register_commands(service.command_specs(ctx))``."""
    identity_changed: bool = False
    """The active persona changed: bump the generation, publish ``active_identity``."""
    reload: bool = False
    """Reload the host once idle (team switch / rollback already committed)."""
    handoff: str | None = None
    """An approved team switch/rollback is waiting: when the host is idle, run the
    `/persona` command with these args (``handoff <id>``) through :meth:`handle_command`."""


@dataclass(frozen=True, slots=True)
class CommandOutcome:
    """A slash command's result and effects."""

    result: CommandResult
    effects: Effects = Effects()


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """A `persona_pack` call's result and effects."""

    result: ToolResult
    effects: Effects = Effects()
