"""The feature port: how the Mind and Persona halves plug into the Companion.

The Companion actor owns every feature instance, so a feature's state is only touched
from the Companion's mailbox — one message at a time, no locks. A feature sees host
events with the current :class:`~persona_mind.messages.owner.OwnerState`, contributes
system-prompt sections, and answers the tools and commands it declares. A slow answer
(a consult, a round-table) is returned as :class:`Background` work so the Companion's
mailbox keeps moving while it runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from persona_mind.messages.host import (
        CommandCall,
        CommandResult,
        CommandSpec,
        HostEvent,
        PromptInjection,
        ToolCall,
        ToolResult,
        ToolSpec,
    )
    from persona_mind.messages.owner import OwnerState

__all__ = ("Background", "Feature")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Background(Generic[T]):
    """Answer later: ``work`` runs as the Companion's cancellable work under ``key``.

    With ``reply`` the call is answered *now* with it and ``work`` keeps running detached
    (it delivers its own result, e.g. a report card; its value is discarded). It is still
    the Companion's work, so an owner change cancels it and nothing stale is delivered.
    """

    key: str
    work: Callable[[], Awaitable[T]]
    reply: T | None = None


class Feature(Protocol):
    """One half of the product (Mind, Persona, children) as seen by the Companion."""

    name: str

    def tool_specs(self) -> Sequence[ToolSpec]:
        """Tools this feature offers now (may change with state, e.g. readiness)."""
        ...

    def command_specs(self) -> Sequence[CommandSpec]:
        """Slash commands this feature offers now."""
        ...

    async def on_event(self, event: HostEvent, owner: OwnerState) -> PromptInjection | None:
        """React to a host event; for ``BeforeAgentStart`` return what to inject."""
        ...

    async def on_owner(self, owner: OwnerState) -> None:
        """The owner state changed (generation bump: session, persona, workspace)."""
        ...

    async def tool(self, call: ToolCall, owner: OwnerState) -> ToolResult | Background[ToolResult]:
        """Answer a call to one of this feature's tools."""
        ...

    async def command(
        self, call: CommandCall, owner: OwnerState
    ) -> CommandResult | Background[CommandResult]:
        """Answer one of this feature's commands."""
        ...
