"""The runtime facade: one object a host adapter drives.

``Runtime`` is the composition root. It builds the actor system (Owner, Companion and the
actors the features need), hands host events, tool calls and commands to the Companion,
and pushes the tool and command specs to the host on every session start. Both host
adapters — the Pi sidecar and the simulated host — use exactly this API.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from persona_mind.actors import ActorRef, ActorSystem, RestartPolicy
from persona_mind.actors.companion import CompanionActor
from persona_mind.actors.owner import OwnerActor
from persona_mind.clock import Clock, MonotonicClock
from persona_mind.errors import HostError
from persona_mind.messages.companion import CompanionMsg, Describe
from persona_mind.messages.host import (
    BeforeAgentStart,
    CommandCall,
    CommandResult,
    CommandSpec,
    HostEvent,
    PromptInjection,
    SessionStart,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from persona_mind.messages.owner import GetOwner, OwnerMsg, OwnerState

if TYPE_CHECKING:
    from persona_mind.feature import Feature
    from persona_mind.host import HostPort

__all__ = ("FeatureFactory", "Runtime", "default_agent_dir")

FeatureFactory = Callable[["Runtime"], "Feature"]
"""Builds a feature once the runtime's actors exist (it may spawn its own)."""

ASK_TIMEOUT = 60.0


def default_agent_dir() -> Path:
    """``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent`` (Pi's own rule)."""
    env = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(env).expanduser() if env else Path.home() / ".pi" / "agent"


class Runtime:
    """A running persona-mind: actors, features and the host they answer to."""

    def __init__(
        self,
        host: HostPort,
        *,
        agent_dir: Path | None = None,
        clock: Clock | None = None,
        trace_path: Path | None = None,
        features: Sequence[FeatureFactory] | None = None,
    ) -> None:
        self.host = host
        self.agent_dir = agent_dir or default_agent_dir()
        self.clock: Clock = clock or MonotonicClock()
        self.system = ActorSystem(clock=self.clock, trace_path=trace_path)
        self._feature_factories = list(features) if features is not None else []
        self.features: list[Feature] = []
        self._owner: ActorRef[OwnerMsg] | None = None
        self._companion: ActorRef[CompanionMsg] | None = None
        self._tool_specs: list[ToolSpec] = []
        self._command_specs: list[CommandSpec] = []

    async def __aenter__(self) -> Runtime:
        await self.system.__aenter__()
        policy = RestartPolicy(max_restarts=3, within=5.0)
        self._owner = self.system.spawn(OwnerActor, name="owner", restart=policy)
        self.features = [factory(self) for factory in self._feature_factories]
        owner = self._owner
        features = self.features
        self._companion = self.system.spawn(
            lambda: CompanionActor(owner, features), name="companion", restart=policy
        )
        await self.specs()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.system.__aexit__(exc_type, exc, tb)

    @property
    def companion(self) -> ActorRef[CompanionMsg]:
        if self._companion is None:
            raise HostError("the runtime is not started; use `async with Runtime(...)`")
        return self._companion

    async def owner(self) -> OwnerState:
        """The current owner state (session identity, generation, active persona)."""
        assert self._owner is not None
        state: OwnerState = await self._owner.ask(GetOwner())
        return state

    async def event(self, event: HostEvent) -> PromptInjection | None:
        """Deliver a host event; ``BeforeAgentStart`` is answered with a PromptInjection."""
        result = await self.companion.ask(event, timeout=ASK_TIMEOUT)
        if isinstance(event, SessionStart):
            await self.publish_specs()
        if isinstance(event, BeforeAgentStart):
            assert isinstance(result, PromptInjection)
            return result
        return None

    async def tool(self, call: ToolCall) -> ToolResult:
        """Answer a tool call; refusals come back as an error result, never a crash."""
        try:
            result: ToolResult = await self.companion.ask(call, timeout=ASK_TIMEOUT)
        except HostError as err:
            return ToolResult(text=str(err), is_error=True)
        return result

    async def command(self, call: CommandCall) -> CommandResult:
        """Run a slash command; refusals come back as an error result."""
        try:
            result: CommandResult = await self.companion.ask(call, timeout=ASK_TIMEOUT)
        except HostError as err:
            return CommandResult(text=str(err), level="error")
        return result

    async def specs(self) -> tuple[list[ToolSpec], list[CommandSpec]]:
        """The tools and commands offered right now."""
        tools, commands = await self.companion.ask(Describe())
        self._tool_specs, self._command_specs = list(tools), list(commands)
        return tools, commands

    def tool_specs(self) -> Sequence[ToolSpec]:
        """The tool specs as last published to the host."""
        return tuple(self._tool_specs)

    def command_specs(self) -> Sequence[CommandSpec]:
        """The command specs as last published to the host."""
        return tuple(self._command_specs)

    async def publish_specs(self) -> None:
        """Push the current tool and command specs to the host."""
        tools, commands = await self.specs()
        await self.host.register_tools(tools)
        await self.host.register_commands(commands)
