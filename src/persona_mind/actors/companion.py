"""The Companion actor: the runtime's front door for host events, tools and commands.

It routes each host event to the Owner (identity, generations) and to every feature, in
one mailbox order; assembles the system-prompt injection for ``BeforeAgentStart``; and
dispatches tool calls and commands to the feature that declared them. Unknown tools and
commands get a typed refusal that names what exists.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from persona_mind.actors import Actor, ActorRef
from persona_mind.errors import HostError
from persona_mind.messages.companion import CompanionMsg, Describe
from persona_mind.messages.host import (
    AgentEnd,
    AgentSettled,
    AgentStart,
    BeforeAgentStart,
    CommandCall,
    CommandResult,
    Input,
    ModelSelect,
    PromptInjection,
    SessionShutdown,
    SessionStart,
    SessionTree,
    ToolCall,
    ToolResult,
)
from persona_mind.messages.owner import GetOwner, OwnerChanged, OwnerMsg, OwnerState

if TYPE_CHECKING:
    from persona_mind.feature import Feature

__all__ = ("INJECTION_BUDGET_SECONDS", "CompanionActor", "UnknownCommand", "UnknownTool")

INJECTION_BUDGET_SECONDS = 0.75  # M-INJECT: fail open after 750 ms, disclosed


class UnknownTool(HostError):
    """The host called a tool this runtime does not offer (any more)."""


class UnknownCommand(HostError):
    """The host ran a command this runtime does not offer (any more)."""


class CompanionActor(Actor[CompanionMsg]):
    """Routes host traffic to the Owner and the features."""

    def __init__(self, owner: ActorRef[OwnerMsg], features: Sequence[Feature]) -> None:
        self.owner_ref = owner
        self.features = list(features)
        self.owner = OwnerState(generation=0)

    async def receive(self, message: CompanionMsg) -> object:
        match message:
            case SessionStart() | SessionShutdown():
                self.owner = await self.owner_ref.ask(message)
                self.generation = self.owner.generation
                await self._broadcast(message)
                return self.owner
            case BeforeAgentStart():
                return await self._inject(message)
            case (
                Input() | AgentStart() | AgentEnd() | AgentSettled() | SessionTree() | ModelSelect()
            ):
                await self._broadcast(message)
                return None
            case ToolCall():
                return await self._tool(message)
            case CommandCall():
                return await self._command(message)
            case OwnerChanged():
                self.owner = message.state
                self.generation = message.state.generation
                return None
            case Describe():
                return (
                    [s for f in self.features for s in f.tool_specs()],
                    [s for f in self.features for s in f.command_specs()],
                )

    async def _broadcast(self, event: Any) -> list[str]:
        sections: list[str] = []
        for feature in self.features:
            sections.extend(await feature.on_event(event, self.owner))
        return sections

    async def _inject(self, event: BeforeAgentStart) -> PromptInjection:
        self.owner = await self.owner_ref.ask(GetOwner())
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(None) as scope:

                def expire() -> None:
                    scope.reschedule(loop.time())

                handle = self.clock.call_later(INJECTION_BUDGET_SECONDS, expire)
                try:
                    sections = await self._broadcast(event)
                finally:
                    handle.cancel()
        except TimeoutError:
            return PromptInjection(
                disclosures=(
                    "persona-mind: context injection skipped this turn (took over "
                    f"{INJECTION_BUDGET_SECONDS * 1000:.0f} ms); memory is intact",
                )
            )
        return PromptInjection(sections=tuple(s for s in sections if s))

    async def _tool(self, call: ToolCall) -> ToolResult:
        for feature in self.features:
            if any(spec.name == call.name for spec in feature.tool_specs()):
                return await feature.tool(call, self.owner)
        offered = sorted(s.name for f in self.features for s in f.tool_specs())
        raise UnknownTool(f"no tool named {call.name!r}; this runtime offers: {', '.join(offered)}")

    async def _command(self, call: CommandCall) -> CommandResult:
        for feature in self.features:
            if any(spec.name == call.name for spec in feature.command_specs()):
                return await feature.command(call, self.owner)
        offered = sorted(s.name for f in self.features for s in f.command_specs())
        raise UnknownCommand(
            f"no command /{call.name}; available: {', '.join('/' + n for n in offered)}"
        )
