"""The Companion actor: the runtime's front door for host events, tools and commands.

It routes each host event to the Owner (identity, generations) and to every feature in
one mailbox order; assembles the system-prompt injection for ``BeforeAgentStart`` (failing
open after 750 ms on the clock, disclosed); dispatches tool calls and commands to the
feature that declared them (slow ones as deferred work, so parallel consults run side by
side); and keeps the host's tool and command registry in step with the features.

It builds its features itself, from the runtime's factories and :class:`Ports`, and is the
only thing that touches them: facades and faces ask it by message (``GetTeam``,
``InspectFeatures``), and the features ask each other through it (it is their
:class:`~persona_mind.feature.Peers` view: the Persona half's status and team, Mind's
settings and lean context).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from persona_mind.actors import Actor
from persona_mind.errors import HostError, PersonaMindError
from persona_mind.feature import (
    Background,
    LeanContext,
    MemoryHalf,
    PersonaHalf,
    PersonaStatus,
    PersonaSubcommands,
    Recovering,
    Reporting,
    SettingsSource,
    StatusSource,
    Subcommand,
    UntrustedSink,
    UntrustedText,
)
from persona_mind.messages.companion import (
    CompanionMsg,
    Describe,
    FeatureReport,
    GetTeam,
    InspectFeatures,
)
from persona_mind.messages.host import (
    AgentEnd,
    AgentSettled,
    AgentStart,
    BeforeAgentStart,
    CommandCall,
    CommandSpec,
    Input,
    ModelSelect,
    PromptInjection,
    SessionShutdown,
    SessionStart,
    SessionTree,
    ToolCall,
    ToolExecutionEnd,
    ToolSpec,
)
from persona_mind.messages.owner import GetOwner, GetSessionStart, OwnerChanged, OwnerState

if TYPE_CHECKING:
    from persona_mind.features._ports import FeatureFactory, Ports
    from persona_mind.messages.team import TeamSnapshot
    from persona_mind.mind import MemoryService

__all__ = ("INJECTION_BUDGET_SECONDS", "CompanionActor", "UnknownCommand", "UnknownTool")

INJECTION_BUDGET_SECONDS = 0.75  # M-INJECT: fail open after 750 ms, disclosed

_BUILDS = itertools.count(1)


def _ignore_untrusted(source: object, text: str) -> None:
    """The sink without a Mind half: no taint ledger to record into."""


"""Serial numbers of feature builds, process-wide (``FeatureReport.serial``)."""


class UnknownTool(HostError):
    """The host called a tool this runtime does not offer (any more)."""


class UnknownCommand(HostError):
    """The host ran a command this runtime does not offer (any more)."""


class CompanionActor(Actor[CompanionMsg]):
    """Routes host traffic to the Owner and the features.

    It holds no one else's state: each incarnation builds its features from scratch (the
    runtime's factories) and, in ``on_start``, they recover the session the Owner holds
    (identity, the recorded session start, the Persona session, the plans stay there).
    """

    def __init__(self, ports: Ports, factories: Sequence[FeatureFactory]) -> None:
        self.owner_ref = ports.owner
        self.host = ports.host
        self.owner = OwnerState(generation=0)
        self._published: tuple[list[ToolSpec], list[CommandSpec]] | None = None
        self._keys = itertools.count(1)
        self.features = [make(ports, self) for make in factories]
        self._serials = tuple(next(_BUILDS) for _ in self.features)
        # who answers which peer question, decided once per incarnation
        self._persona = [f for f in self.features if isinstance(f, PersonaHalf)]
        self._settings = [f for f in self.features if isinstance(f, SettingsSource)]
        self._lean = next((f for f in self.features if isinstance(f, LeanContext)), None)
        self._memory = next((f for f in self.features if isinstance(f, MemoryHalf)), None)
        self._sink = next((f for f in self.features if isinstance(f, UntrustedSink)), None)
        self._status = [f for f in self.features if isinstance(f, StatusSource)]
        self._subcommands: dict[str, Subcommand] = {
            head: handler
            for f in self.features
            if isinstance(f, PersonaSubcommands)
            for head, handler in f.persona_subcommands().items()
        }

    async def on_start(self) -> None:
        """Resume the Owner's current session, if any (after a restart; a no-op at start).

        A feature with a ``recover`` hook restores its view itself; any other feature sees
        the recorded session start again (its entries dropped, the model as selected)."""
        self.owner = await self.owner_ref.ask(GetOwner())
        start = await self.owner_ref.ask(GetSessionStart())
        if start is None or not self.owner.ready:
            return
        for feature in self.features:
            if isinstance(feature, Recovering):
                await feature.recover(self.owner, start)
            else:
                await feature.on_event(start, self.owner)
        await self._sync_specs()

    async def receive(self, message: CompanionMsg) -> object:
        match message:
            case SessionStart() | SessionShutdown():
                self.owner = await self.owner_ref.ask(message)
                await self._broadcast(message)
                await self._sync_specs()
                return self.owner
            case BeforeAgentStart():
                return await self._inject(message)
            case Input() | AgentStart() | AgentEnd() | AgentSettled() | ToolExecutionEnd():
                await self._broadcast(message)
                return None
            case ModelSelect():
                await self.owner_ref.ask(message)  # the Owner keeps the session's model
                await self._broadcast(message)
                await self._sync_specs()
                return None
            case SessionTree():
                await self._broadcast(message)
                await self._sync_specs()
                return None
            case ToolCall():
                return await self._tool(message)
            case CommandCall():
                return await self._command(message)
            case OwnerChanged():
                self.owner = message.state
                for feature in self.features:
                    await feature.on_owner(message.state)
                await self._sync_specs()
                return None
            case Describe():
                return self._specs()
            case GetTeam():
                return await self.team()
            case InspectFeatures():
                return self._reports()

    def _reports(self) -> tuple[FeatureReport, ...]:
        return tuple(
            FeatureReport(
                name=feature.name,
                serial=serial,
                details=dict(feature.details()) if isinstance(feature, Reporting) else {},
            )
            for feature, serial in zip(self.features, self._serials, strict=True)
        )

    # -- the features' peers (feature.Peers), answered inside this mailbox ----------------
    def persona_status(self) -> tuple[PersonaStatus, ...]:
        return tuple(half.persona_status() for half in self._persona)

    def settings(self) -> tuple[Mapping[str, Any] | PersonaMindError, ...]:
        out: list[Mapping[str, Any] | PersonaMindError] = []
        for source in self._settings:
            try:
                out.append(source.settings_contribution())
            except PersonaMindError as exc:  # named by the collector, never dropped
                out.append(exc)
        return tuple(out)

    async def team(self) -> TeamSnapshot | None:
        return await self._persona[0].team() if self._persona else None

    async def lean_injection(self, query: str) -> str:
        return await self._lean.lean_injection(query) if self._lean is not None else ""

    def memory_service(self) -> MemoryService | None:
        return self._memory.memory_service() if self._memory is not None else None

    def untrusted_sink(self) -> UntrustedText:
        return self._sink.untrusted_sink() if self._sink is not None else _ignore_untrusted

    async def status_lines(self) -> tuple[str, ...]:
        lines = [await source.status_line() for source in self._status]
        return tuple(line for line in lines if line)

    def persona_subcommand(self, head: str) -> Subcommand | None:
        return self._subcommands.get(head)

    # -- specs ---------------------------------------------------------------------------
    def _specs(self) -> tuple[list[ToolSpec], list[CommandSpec]]:
        return (
            [s for f in self.features for s in f.tool_specs()],
            [s for f in self.features for s in f.command_specs()],
        )

    async def _sync_specs(self) -> None:
        """Push tools and commands to the host when they changed (readiness, aliases)."""
        specs = self._specs()
        if specs != self._published:
            self._published = specs
            await self.host.register_tools(specs[0])
            await self.host.register_commands(specs[1])

    async def _broadcast(self, event: Any) -> list[PromptInjection]:
        out: list[PromptInjection] = []
        for feature in self.features:
            injected = await feature.on_event(event, self.owner)
            if injected is not None:
                out.append(injected)
        return out

    async def _inject(self, event: BeforeAgentStart) -> PromptInjection:
        """Assemble the turn's injection; fail open after the budget, disclosed.

        The Owner's state is the one this Companion last received — no ``GetOwner`` ask
        per turn (issue 10, ``before_agent_start``). That copy is exact in mailbox order:
        the Owner's state changes only in its ``_advance``, which moves the generation,
        checkpoints and tells ``OwnerChanged`` to its subscribers in one synchronous step
        (no await, so no crash or cancellation can split them), before it answers the
        message that caused the change; so every change reaches this mailbox before any
        host event that could follow it, and is applied here in order (``OwnerChanged``
        above, and the Owner's own answer to ``SessionStart``/``SessionShutdown``). A
        restarted Owner keeps its checkpointed state and the system's generation, which
        it had broadcast already; it keeps its subscribers, so later changes still come
        here. A restarted Companion reads the state afresh in ``on_start``.
        """
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(None) as scope:

                def expire() -> None:
                    scope.reschedule(loop.time())

                handle = self.clock.call_later(INJECTION_BUDGET_SECONDS, expire)
                try:
                    parts = await self._broadcast(event)
                finally:
                    handle.cancel()
        except TimeoutError:
            return PromptInjection(
                disclosures=(
                    "persona-mind: context injection skipped this turn (over "
                    f"{INJECTION_BUDGET_SECONDS * 1000:.0f} ms); memory is intact",
                )
            )
        return PromptInjection(
            sections=tuple(s for p in parts for s in p.sections if s),
            disclosures=tuple(d for p in parts for d in p.disclosures),
        )

    async def _tool(self, call: ToolCall) -> object:
        for feature in self.features:
            if any(spec.name == call.name for spec in feature.tool_specs()):
                return await self._answer(await feature.tool(call, self.owner))
        offered = sorted(s.name for f in self.features for s in f.tool_specs())
        raise UnknownTool(
            f"no tool named {call.name!r}; this runtime offers: {', '.join(offered) or 'none'}"
        )

    async def _command(self, call: CommandCall) -> object:
        for feature in self.features:
            if any(spec.name == call.name for spec in feature.command_specs()):
                return await self._answer(await feature.command(call, self.owner))
        offered = sorted(s.name for f in self.features for s in f.command_specs())
        raise UnknownCommand(
            f"no command /{call.name}; available: {', '.join('/' + n for n in offered)}"
        )

    async def _answer(self, result: object) -> object:
        """Resync the host's specs (a call may change them), then answer now or deferred."""
        await self._sync_specs()
        if isinstance(result, Background):
            if result.reply is not None:  # answered at acceptance; the work runs detached
                self.start_work(f"{result.key}-{next(self._keys)}", result.work)
                return result.reply
            return self.defer(f"{result.key}-{next(self._keys)}", result.work)
        return result
