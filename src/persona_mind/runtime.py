"""The runtime facade: one object a host adapter drives.

``Runtime`` is the composition root. Its ``__aenter__`` builds the whole actor tree at once
(:mod:`persona_mind._composition`: the HostProxy, Store, Owner, Reminder, ChildRunner and
RoundtableDesk when a child backend is given, Optimizer, Scheduler, then the Companion,
which builds its features from their ports), and leaving it stops the tree in reverse start
order: the front door first, the host pipe last. No property spawns an actor, and no
feature object leaves the Companion: facades and faces ask it by message (``owner()``,
``team()``, ``specs()``). Host events, tool calls and commands all go to the Companion;
every host adapter (the Pi sidecar, the simulated host, the MCP server) uses exactly this
API. Before answering the host, the facade flushes the HostProxy, so the requests a call
made (notifications, entries, cards) reach the host before its answer.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from persona_mind.actors import ActorRef, ActorSystem
from persona_mind.clock import Clock, MonotonicClock
from persona_mind.errors import ActorError, HostError
from persona_mind.messages.companion import CompanionMsg, Describe, GetTeam
from persona_mind.messages.host import (
    BeforeAgentStart,
    CommandCall,
    CommandResult,
    CommandSpec,
    HostEvent,
    PromptInjection,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from persona_mind.messages.owner import GetOwner, OwnerMsg, OwnerState

if TYPE_CHECKING:
    from persona_mind._composition import ActorTree
    from persona_mind.actors.host_proxy import HostClient
    from persona_mind.actors.store import StoreClient
    from persona_mind.children import ChildBackend
    from persona_mind.features import FeatureFactory
    from persona_mind.host import HostPort
    from persona_mind.messages.team import TeamSnapshot

__all__ = ("Runtime", "default_agent_dir")

T = TypeVar("T")

ASK_TIMEOUT = 600.0  # a host call may wait on a round-table; children have their own deadlines
_NOT_STARTED = "the runtime is not started; use `async with Runtime(...)`"


def default_agent_dir() -> Path:
    """``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent`` (Pi's own rule)."""
    env = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(env).expanduser() if env else Path.home() / ".pi" / "agent"


class Runtime:
    """A running persona-mind: its actor tree and the host it answers to.

    ``features=None`` builds the product (Persona, Mind, and consults/round-tables when a
    ``child_backend`` is given); pass factories (``persona_mind.features.FeatureFactory``,
    each called with the ports and the Companion's peers view) to run a custom set (``[]``
    for no feature at all). The actor tree is the same either way.
    """

    def __init__(
        self,
        host: HostPort,
        *,
        agent_dir: Path | None = None,
        clock: Clock | None = None,
        trace_path: Path | None = None,
        features: Sequence[FeatureFactory] | None = None,
        child_backend: ChildBackend | None = None,
    ) -> None:
        self.host_port = host
        """The adapter's own port; the runtime talks to it only through the HostProxy."""
        self.agent_dir = agent_dir or default_agent_dir()
        self.clock: Clock = clock or MonotonicClock()
        self.system = ActorSystem(clock=self.clock, trace_path=trace_path)
        self.child_backend = child_backend
        self._factories = tuple(features) if features is not None else None
        self._tree: ActorTree | None = None
        self._tool_specs: list[ToolSpec] = []
        self._command_specs: list[CommandSpec] = []

    # -- lifecycle ---------------------------------------------------------------------
    async def __aenter__(self) -> Runtime:
        from persona_mind._composition import build_tree  # noqa: PLC0415 - light
        from persona_mind.features import product_features  # noqa: PLC0415 - light

        await self.system.__aenter__()
        try:
            children = self.child_backend is not None
            self._tree = await build_tree(
                self.system,
                self.host_port,
                agent_dir=self.agent_dir,
                clock=self.clock,
                child_backend=self.child_backend,
                features=product_features(children=children)
                if self._factories is None
                else self._factories,
            )
            await self.specs()
        except BaseException:
            await self.system.stop()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.system.__aexit__(exc_type, exc, tb)

    # -- handles (refs of the tree built at start; none spawns anything) ----------------
    @property
    def tree(self) -> ActorTree:
        if self._tree is None:
            raise HostError(_NOT_STARTED)
        return self._tree

    @property
    def host(self) -> HostClient:
        """The host, through the HostProxy actor (requests queued in order, never awaited
        inside another actor's ``receive``)."""
        return self.tree.host

    @property
    def companion(self) -> ActorRef[CompanionMsg]:
        return self.tree.companion

    @property
    def owner_ref(self) -> ActorRef[OwnerMsg]:
        return self.tree.owner

    @property
    def store(self) -> StoreClient | None:
        """The Store actor's client (``None`` before start)."""
        return None if self._tree is None else self._tree.store

    @property
    def reminders(self) -> ActorRef[Any]:
        return self.tree.reminders

    @property
    def optimizer(self) -> ActorRef[Any]:
        return self.tree.optimizer

    @property
    def scheduler(self) -> ActorRef[Any] | None:
        """The Scheduler (automatic reviews); only with a child backend."""
        return self.tree.scheduler

    @property
    def child_runner(self) -> ActorRef[Any] | None:
        """The ChildRunner; only with a child backend."""
        return self.tree.child_runner

    @property
    def roundtables(self) -> ActorRef[Any] | None:
        """The RoundtableDesk (one round-table at a time); only with a child backend."""
        return self.tree.roundtables

    async def offload(self, fn: Callable[[], T]) -> T:
        """Run blocking work on the Store actor's IO thread (``RunIO``), the process's one
        serial blocking-IO executor (the features' ``Ports.offload`` is the same). ``fn``
        must not wait on an actor (asking the Store from it is refused, ``StoreReentry``).
        """
        return await self.tree.store.run_io(fn, "offloaded job")

    async def owner(self) -> OwnerState:
        """The current owner state (session identity, generation, active persona)."""
        state: OwnerState = await self.owner_ref.ask(GetOwner())
        return state

    async def team(self) -> TeamSnapshot | None:
        """The session's team snapshot, asked of the Companion (``GetTeam``)."""
        return await self.companion.ask(GetTeam(), timeout=ASK_TIMEOUT)

    # -- host traffic ------------------------------------------------------------------
    async def event(self, event: HostEvent) -> PromptInjection | None:
        """Deliver a host event; ``BeforeAgentStart`` is answered with a PromptInjection."""
        try:
            result = await self.companion.ask(event, timeout=ASK_TIMEOUT)
        finally:
            await self._flush()
        if isinstance(event, BeforeAgentStart):
            assert isinstance(result, PromptInjection)
            return result
        return None

    async def tool(self, call: ToolCall) -> ToolResult:
        """Answer a tool call; refusals come back as an error result, never a crash."""
        try:
            return await self.companion.ask(call, timeout=ASK_TIMEOUT)
        except HostError as err:
            return ToolResult(text=str(err), is_error=True)
        finally:
            await self._flush()

    async def command(self, call: CommandCall) -> CommandResult:
        """Run a slash command; refusals come back as an error result."""
        try:
            return await self.companion.ask(call, timeout=ASK_TIMEOUT)
        except HostError as err:
            return CommandResult(text=str(err), level="error")
        finally:
            await self._flush()

    async def _flush(self) -> None:
        """Let the host see every request a call made before it sees the call's answer."""
        host = None if self._tree is None else self._tree.host
        if host is not None and host.ref.is_alive():
            with contextlib.suppress(ActorError):  # stopping: nothing is left to show
                await host.flush()

    async def specs(self) -> tuple[list[ToolSpec], list[CommandSpec]]:
        """The tools and commands offered right now (also cached for the sync getters)."""
        tools, commands = await self.companion.ask(Describe())
        self._tool_specs, self._command_specs = list(tools), list(commands)
        return tools, commands

    def tool_specs(self) -> Sequence[ToolSpec]:
        """The tool specs as last read."""
        return tuple(self._tool_specs)

    def command_specs(self) -> Sequence[CommandSpec]:
        """The command specs as last read."""
        return tuple(self._command_specs)

    async def publish_specs(self) -> None:
        """Push the current tool and command specs to the host."""
        tools, commands = await self.specs()
        await self.host.register_tools(tools)
        await self.host.register_commands(commands)
