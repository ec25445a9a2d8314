"""The host port: what the runtime may ask of its host (Pi or the simulated host).

The runtime never imports Pi or the harness; it holds a :class:`HostPort` and sends it
requests. Events flow the other way as :data:`persona_mind.messages.host.HostEvent`
values handed to :class:`persona_mind.Runtime`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from persona_mind.messages.host import (
    CommandSpec,
    CustomEntry,
    DisplayMessage,
    NotifyLevel,
    ToolSpec,
)

__all__ = ("HostPort",)


class HostPort(Protocol):
    """Requests out, from the runtime to its host."""

    async def register_tools(self, tools: Sequence[ToolSpec]) -> None:
        """Declare (replace) the tools the model may call."""
        ...

    async def register_commands(self, commands: Sequence[CommandSpec]) -> None:
        """Declare (replace) the slash commands, including direct persona aliases."""
        ...

    async def append_entry(self, custom_type: str, data: Any) -> None:
        """Append a custom entry to the session (session notes persist this way)."""
        ...

    async def branch_entries(self) -> Sequence[CustomEntry]:
        """The custom entries on the active branch, oldest first."""
        ...

    async def notify(self, text: str, level: NotifyLevel = "info") -> None:
        """Show a short notification."""
        ...

    async def set_status(self, key: str, text: str | None) -> None:
        """Set (or clear with ``None``) a status-line item."""
        ...

    async def display(self, message: DisplayMessage) -> None:
        """Show a display-only message: a card or a reminder wake, never a user message."""
        ...

    async def send_user_message(self, text: str) -> None:
        """Send ``text`` as a real user message (``/persona use <name> <query>``)."""
        ...

    async def tool_update(self, call_id: str, text: str, details: Any = None) -> None:
        """Show progress of tool call ``call_id`` while it runs (a partial result in Pi).

        Only for the call in flight: the final answer is still the tool's result. A host
        without live tool display may drop it (P-ROUNDTABLE-17: the round-table's phases)."""
        ...

    async def request_reload(self) -> None:
        """Ask the host to reload the session (team switch, rollback)."""
        ...
