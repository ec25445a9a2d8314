"""The feature port: how the Mind and Persona halves plug into the Companion.

The Companion actor owns every feature instance, so a feature's state is only touched
from the Companion's mailbox — one message at a time, no locks. A feature sees host
events with the current :class:`~persona_mind.messages.owner.OwnerState`, contributes
system-prompt sections, and answers the tools and commands it declares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from persona_mind.messages.host import (
        CommandCall,
        CommandResult,
        CommandSpec,
        HostEvent,
        ToolCall,
        ToolResult,
        ToolSpec,
    )
    from persona_mind.messages.owner import OwnerState

__all__ = ("Feature",)


class Feature(Protocol):
    """One half of the product (Mind, Persona) as seen by the Companion."""

    name: str

    def tool_specs(self) -> Sequence[ToolSpec]:
        """Tools this feature offers now (may change with state, e.g. readiness)."""
        ...

    def command_specs(self) -> Sequence[CommandSpec]:
        """Slash commands this feature offers now."""
        ...

    async def on_event(self, event: HostEvent, owner: OwnerState) -> Sequence[str]:
        """React to a host event; for ``BeforeAgentStart`` return system-prompt sections."""
        ...

    async def tool(self, call: ToolCall, owner: OwnerState) -> ToolResult:
        """Answer a call to one of this feature's tools."""
        ...

    async def command(self, call: CommandCall, owner: OwnerState) -> CommandResult:
        """Answer one of this feature's commands."""
        ...
