"""The runtime facade: one object a host adapter drives.

``Runtime`` is the composition root. It starts the actors in dependency order — the
HostProxy (the one actor that waits on the host), Store (every durable file), Owner
(identity, generations), Reminder, ChildRunner (when a child backend is given), then the
Companion with the features — so that stopping in reverse start order stops the front
door first and the host pipe last. Host events, tool calls and commands all go to the
Companion; every host adapter (the Pi sidecar, the simulated host, the MCP server) uses
exactly this API. Before answering the host, the facade flushes the HostProxy, so the
requests a call made (notifications, entries, cards) reach the host before its answer.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from persona_mind.actors import ActorRef, ActorSystem, RestartPolicy
from persona_mind.clock import Clock, MonotonicClock
from persona_mind.errors import ActorError, HostError
from persona_mind.messages.companion import CompanionMsg, Describe
from persona_mind.messages.host import (
    BeforeAgentStart,
    CommandCall,
    CommandResult,
    CommandSpec,
    DisplayMessage,
    HostEvent,
    PromptInjection,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from persona_mind.messages.owner import GetOwner, OwnerMsg, OwnerState, Subscribe

if TYPE_CHECKING:
    from persona_mind.actors.host_proxy import HostClient
    from persona_mind.children import ChildBackend
    from persona_mind.feature import Feature
    from persona_mind.host import HostPort
    from persona_mind.persona.packs._fsio import PackFiles
    from persona_mind.storage.port import StorePort

__all__ = ("FeatureFactory", "Runtime", "default_agent_dir")

T = TypeVar("T")

FeatureFactory = Callable[["Runtime"], "Feature"]
"""Builds a feature once the runtime's actors exist."""

ASK_TIMEOUT = 600.0  # a host call may wait on a round-table; children have their own deadlines
POLICY = RestartPolicy(max_restarts=3, within=5.0)


def default_agent_dir() -> Path:
    """``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent`` (Pi's own rule)."""
    env = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(env).expanduser() if env else Path.home() / ".pi" / "agent"


class Runtime:
    """A running persona-mind: actors, features and the host they answer to.

    ``features=None`` builds the product (Persona, Mind, and consults/round-tables when a
    ``child_backend`` is given); pass factories to run a custom set (``[]`` for the bare
    kernel, as the demo's first section does).
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
        self._host: HostClient | None = None
        self.agent_dir = agent_dir or default_agent_dir()
        self.clock: Clock = clock or MonotonicClock()
        self.system = ActorSystem(clock=self.clock, trace_path=trace_path)
        self.child_backend = child_backend
        self._factories = list(features) if features is not None else None
        self.features: list[Feature] = []
        self.store: StorePort | None = None
        self._child_runner: ActorRef[Any] | None = None
        self._desk: ActorRef[Any] | None = None
        self._reminders: ActorRef[Any] | None = None
        self._optimizer: ActorRef[Any] | None = None  # issue 11: consolidation
        self._scheduler: ActorRef[Any] | None = None  # issue 12: automatic reviews
        self._owner: ActorRef[OwnerMsg] | None = None
        self._companion: ActorRef[CompanionMsg] | None = None
        self._pack_files: PackFiles | None = None
        self._tool_specs: list[ToolSpec] = []
        self._command_specs: list[CommandSpec] = []

    # -- lifecycle ---------------------------------------------------------------------
    async def __aenter__(self) -> Runtime:
        await self.system.__aenter__()
        try:
            from persona_mind.actors.host_proxy import (  # noqa: PLC0415 - light
                HostClient,
                HostProxy,
            )

            port = self.host_port
            bridge = self.system.spawn(lambda: HostProxy(port), name="host-proxy", restart=POLICY)
            self._host = HostClient(bridge)
            self._start_actors()
            self._companion = self.system.spawn(
                self._companion_factory(), name="companion", restart=POLICY
            )
            self.system.link(self.owner_ref, self._companion)  # an Owner crash restarts it
            await self.owner_ref.ask(Subscribe(ref=self._companion))
            await self.specs()
        except BaseException:
            await self.system.stop()
            raise
        return self

    def _start_actors(self) -> None:
        """Spawn the actors a session needs at once; the rest start at first use.

        Start-up is what a Pi session waits for (``docs/bridge.md``, performance), so nothing
        here imports the storage engine, Mind, Persona or the child runner: the Store builds
        its engine at its first IO, the features build their services at the first session
        event, and the Reminder and ChildRunner actors are spawned when first asked for.
        """
        from persona_mind.actors.owner import OwnerActor  # noqa: PLC0415 - keep import light

        self.agent_dir.mkdir(parents=True, exist_ok=True)
        if self._factories is None:
            from persona_mind.actors.store import spawn_store  # noqa: PLC0415

            self.store = spawn_store(self.system, self.agent_dir, restart=POLICY)
        self._owner = self.system.spawn(OwnerActor, name="owner", restart=POLICY)

    def _new_features(self) -> list[Feature]:
        """The features of one Companion incarnation, built from scratch (a restarted
        Companion never reuses the old objects; they recover from the Owner)."""
        if self._factories is not None:
            self.features = [factory(self) for factory in self._factories]
        else:
            self.features = self._product()
        return self.features

    @property
    def reminders(self) -> ActorRef[Any] | None:
        """The Reminder actor of the product runtime, spawned at first use (None otherwise)."""
        if self._reminders is None and self._factories is None:
            from persona_mind.actors.reminder import ReminderActor  # noqa: PLC0415 - imports Mind

            host = self.host

            async def display(message: DisplayMessage) -> None:
                await host.display(message)

            async def toast(text: str) -> None:  # M-REMINDER-1: the short wake toast
                await host.notify(text, "info")

            async def record(custom_type: str, data: object) -> None:  # M-REMINDER-3
                await host.append_entry(custom_type, data)

            self._reminders = self.system.spawn(
                lambda: ReminderActor(display, toast=toast, record=record),
                name="reminder",
                restart=POLICY,
            )
            self.owner_ref.tell(Subscribe(ref=self._reminders))  # new generations cancel timers
        return self._reminders

    @property
    def optimizer(self) -> ActorRef[Any] | None:
        """Issue 11: the Optimizer actor, spawned at first use next to the Reminder."""
        if self._optimizer is None and self._factories is None:
            from persona_mind.actors.optimizer import spawn_optimizer  # noqa: PLC0415

            host = self.host

            async def record(card: dict[str, Any]) -> None:  # M-OPTIMIZE-WORKER-21
                await host.append_entry("persona-mind-report", card)

            from persona_mind.actors.store import StoreClient  # noqa: PLC0415

            assert isinstance(self.store, StoreClient)
            self._optimizer = spawn_optimizer(
                self.system,
                self.store,  # file work on the Store's IO thread
                restart=POLICY,
                runner=lambda: self.child_runner,
                record=record,
            )
            self.owner_ref.tell(Subscribe(ref=self._optimizer))  # new generations drop plans
        return self._optimizer

    @property
    def roundtables(self) -> ActorRef[Any] | None:
        """The RoundtableDesk (one round-table at a time), spawned at the first one."""
        if self._desk is None and self._factories is None and self.child_backend is not None:
            from persona_mind.actors.roundtable_desk import RoundtableDesk  # noqa: PLC0415

            self._desk = self.system.spawn(
                lambda: RoundtableDesk(lambda: self.child_runner),
                name="roundtables",
                restart=POLICY,
            )
        return self._desk

    @property
    def scheduler(self) -> ActorRef[Any] | None:
        """Issue 12: the Scheduler (automatic reviews), spawned at first use when worker
        children can run (a child backend is given)."""
        if self._scheduler is None and self._factories is None and self.child_backend:
            from persona_mind.actors.scheduler import spawn_scheduler  # noqa: PLC0415
            from persona_mind.mind.optimize._schedule import auto_default  # noqa: PLC0415

            host = self.host

            async def append(custom_type: str, data: dict[str, Any]) -> None:
                await host.append_entry(custom_type, data)  # attempt receipts (AUTO-17)

            self._scheduler = spawn_scheduler(
                self.system,
                lambda: self.optimizer,
                append,
                enabled=auto_default(os.environ),
                restart=POLICY,
            )
            self.owner_ref.tell(Subscribe(ref=self._scheduler))  # owner changes cancel
        return self._scheduler

    @property
    def child_runner(self) -> ActorRef[Any] | None:
        """The ChildRunner actor when a child backend is given, spawned at first use."""
        if (
            self._child_runner is None
            and self._factories is None
            and self.child_backend is not None
        ):
            from persona_mind.actors.child_runner import ChildRunner  # noqa: PLC0415 - children

            backend = self.child_backend
            self._child_runner = self.system.spawn(
                lambda: ChildRunner(backend), name="child-runner", restart=POLICY
            )
        return self._child_runner

    def _product(self) -> list[Feature]:
        from persona_mind.features import (  # noqa: PLC0415
            ChildrenFeature,
            MindFeature,
            PersonaFeature,
        )

        persona = PersonaFeature(self)
        assert self.store is not None
        mind = MindFeature(self, self.store, persona, lambda: self.reminders)
        mind.optimizer = lambda: self.optimizer  # issue 11: /mind optimize routes here
        if self.child_backend is not None:  # issue 12: reviews need worker children
            mind.scheduler = lambda: self.scheduler
        out: list[Feature] = [persona, mind]
        if self.child_backend is not None:
            out.append(
                ChildrenFeature(
                    self,
                    lambda: self.child_runner,
                    persona,
                    mind,
                    desk=lambda: self.roundtables,
                    spawned_runner=lambda: self._child_runner,
                )
            )
        return out

    def _companion_factory(self) -> Callable[[], Any]:
        from persona_mind.actors.companion import CompanionActor  # noqa: PLC0415

        owner, host = self.owner_ref, self.host
        return lambda: CompanionActor(owner, self._new_features(), host)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.system.__aexit__(exc_type, exc, tb)

    # -- handles -----------------------------------------------------------------------
    @property
    def host(self) -> HostClient:
        """The host, through the HostProxy actor (requests queued in order, never awaited
        inside another actor's ``receive``)."""
        if self._host is None:
            raise HostError("the runtime is not started; use `async with Runtime(...)`")
        return self._host

    @property
    def companion(self) -> ActorRef[CompanionMsg]:
        if self._companion is None:
            raise HostError("the runtime is not started; use `async with Runtime(...)`")
        return self._companion

    @property
    def owner_ref(self) -> ActorRef[OwnerMsg]:
        if self._owner is None:
            raise HostError("the runtime is not started; use `async with Runtime(...)`")
        return self._owner

    async def offload(self, fn: Callable[[], T]) -> T:
        """Run blocking domain work on the Store actor's IO thread (``RunIO``).

        The process's one serial blocking-IO executor: pack-store IO (Persona), Mind index
        builds and the memory stores share it, one job at a time, in the Store's mailbox
        order. ``fn`` must not wait on an actor (asking the Store from it is refused with
        ``StoreReentry``). The Store's thread starts at its first IO; a runtime built with
        a custom feature set gets its Store at the first offload.
        """
        from persona_mind.actors.store import StoreClient  # noqa: PLC0415 - first IO

        if self.store is None:
            from persona_mind.actors.store import spawn_store  # noqa: PLC0415

            self.store = spawn_store(self.system, self.agent_dir, restart=POLICY)
        assert isinstance(self.store, StoreClient)
        return await self.store.run_io(fn, "offloaded job")

    @property
    def pack_files(self) -> PackFiles:
        """The pack store's durable file port (``persona_mind.storage.DurablePackFiles``).

        Persona implements no file IO itself (issue 10): the runtime hands it this object,
        and its writes run on the Store's IO thread through :meth:`offload`.
        """
        if self._pack_files is None:
            from persona_mind.storage import DurablePackFiles  # noqa: PLC0415 - first session

            self._pack_files = DurablePackFiles()
        return self._pack_files

    def feature(self, name: str) -> Feature:
        """The feature called ``name`` (``persona``, ``mind``, ``children``)."""
        for feature in self.features:
            if feature.name == name:
                return feature
        raise HostError(f"no feature {name!r} in this runtime")

    async def owner(self) -> OwnerState:
        """The current owner state (session identity, generation, active persona)."""
        state: OwnerState = await self.owner_ref.ask(GetOwner())
        return state

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
        if self._host is not None and self._host.ref.is_alive():
            with contextlib.suppress(ActorError):  # stopping: nothing is left to show
                await self._host.flush()

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
