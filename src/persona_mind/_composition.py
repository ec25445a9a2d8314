"""The runtime's actor tree, built whole at start: every actor, then the features' ports.

:func:`build_tree` spawns each actor once, in dependency order — the HostProxy (the one
actor that waits on the host), the Store (every durable file, and the process's one
blocking-IO thread), the Owner (identity, generations), the Reminder, the ChildRunner and
the RoundtableDesk (when a child backend is given), the Optimizer, the Scheduler (with a
child backend), and last the Companion with its features — and subscribes the Companion,
the Reminder, the Optimizer and the Scheduler to the Owner's broadcasts. The root
supervisor stops its children in reverse start order, so the front door stops first and
the host pipe last. No actor is spawned later, by a getter or at first use.

Spawning is cheap; importing Mind, Persona, the storage engine or the child-process layer
is not (a Pi session waits for ``ready``; ``docs/bridge.md``, performance). So the actor
modules imported here are light, and each actor builds its domain services at its first
message: the Store its engine at its first IO, the features their services at the first
session event, the Reminder, Optimizer and Scheduler their rules when a session first
needs them, the ChildRunner its process layer at its first child.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.actors import ActorRef, ActorSystem, RestartPolicy
from persona_mind.messages.host import DisplayMessage
from persona_mind.messages.owner import Subscribe

if TYPE_CHECKING:
    from persona_mind.actors.host_proxy import HostClient
    from persona_mind.actors.store import StoreClient
    from persona_mind.children import ChildBackend
    from persona_mind.clock import Clock
    from persona_mind.features import FeatureFactory, Ports
    from persona_mind.host import HostPort
    from persona_mind.messages.companion import CompanionMsg
    from persona_mind.messages.optimizer import OptimizerMsg
    from persona_mind.messages.owner import OwnerMsg
    from persona_mind.messages.reminder import ReminderMsg
    from persona_mind.messages.roundtable_desk import DeskMsg
    from persona_mind.messages.runner import RunnerMessage
    from persona_mind.messages.scheduler import SchedulerMsg
    from persona_mind.persona.packs._fsio import PackFiles

__all__ = ("POLICY", "ActorTree", "build_tree", "spawn_tree")

POLICY = RestartPolicy(max_restarts=3, within=5.0)


class ActorTree(msgspec.Struct, frozen=True):
    """Every actor of one runtime, as refs and clients (see the module doc)."""

    host: HostClient
    store: StoreClient
    owner: ActorRef[OwnerMsg]
    reminders: ActorRef[ReminderMsg]
    child_runner: ActorRef[RunnerMessage] | None
    roundtables: ActorRef[DeskMsg] | None
    optimizer: ActorRef[OptimizerMsg]
    scheduler: ActorRef[SchedulerMsg] | None
    companion: ActorRef[CompanionMsg]
    ports: Ports


def _durable_pack_files() -> PackFiles:
    """The pack store's durable file port, built at the first session (storage engine)."""
    from persona_mind.storage import DurablePackFiles  # noqa: PLC0415 - first session

    return DurablePackFiles()


async def build_tree(
    system: ActorSystem,
    port: HostPort,
    *,
    agent_dir: Path,
    clock: Clock,
    child_backend: ChildBackend | None,
    features: Sequence[FeatureFactory],
) -> ActorTree:
    """Spawn the whole tree in ``system`` and subscribe its actors to the Owner (see the
    module doc); the caller stops the system if this raises."""
    tree = spawn_tree(
        system,
        port,
        agent_dir=agent_dir,
        clock=clock,
        child_backend=child_backend,
        features=features,
    )
    # the Companion first, as it always was; the others drop the timers, plans and
    # attempts of a replaced owner
    for subscriber in (tree.companion, tree.reminders, tree.optimizer, tree.scheduler):
        if subscriber is not None:
            await tree.owner.ask(Subscribe(ref=subscriber))
    return tree


def spawn_tree(
    system: ActorSystem,
    port: HostPort,
    *,
    agent_dir: Path,
    clock: Clock,
    child_backend: ChildBackend | None,
    features: Sequence[FeatureFactory],
) -> ActorTree:
    """Spawn every actor once, in dependency order (the imports are light: module doc)."""
    from persona_mind.actors.companion import CompanionActor  # noqa: PLC0415
    from persona_mind.actors.host_proxy import HostClient, HostProxy  # noqa: PLC0415
    from persona_mind.actors.optimizer import spawn_optimizer  # noqa: PLC0415
    from persona_mind.actors.owner import OwnerActor  # noqa: PLC0415
    from persona_mind.actors.reminder import ReminderActor  # noqa: PLC0415
    from persona_mind.actors.store import spawn_store  # noqa: PLC0415
    from persona_mind.features import Ports  # noqa: PLC0415
    from persona_mind.features._mind_reports import REPORT_ENTRY_TYPE  # noqa: PLC0415

    host = HostClient(system.spawn(lambda: HostProxy(port), name="host-proxy", restart=POLICY))
    agent_dir.mkdir(parents=True, exist_ok=True)
    store = spawn_store(system, agent_dir, restart=POLICY)
    owner: ActorRef[OwnerMsg] = system.spawn(OwnerActor, name="owner", restart=POLICY)

    async def display(message: DisplayMessage) -> None:
        await host.display(message)

    async def toast(text: str) -> None:  # M-REMINDER-1: the short wake toast
        await host.notify(text, "info")

    async def append(custom_type: str, data: Any) -> None:  # M-REMINDER-3, AUTO-17
        await host.append_entry(custom_type, data)

    async def record(card: dict[str, Any]) -> None:  # M-OPTIMIZE-WORKER-21
        await host.append_entry(REPORT_ENTRY_TYPE, card)

    reminders: ActorRef[ReminderMsg] = system.spawn(
        lambda: ReminderActor(display, toast=toast, record=append),
        name="reminder",
        restart=POLICY,
    )
    runner: ActorRef[RunnerMessage] | None = None
    desk: ActorRef[DeskMsg] | None = None
    if child_backend is not None:
        from persona_mind.actors.child_runner import ChildRunner  # noqa: PLC0415
        from persona_mind.actors.roundtable_desk import RoundtableDesk  # noqa: PLC0415

        backend = child_backend
        runner = system.spawn(lambda: ChildRunner(backend), name="child-runner", restart=POLICY)
        desk = system.spawn(
            lambda: RoundtableDesk(lambda: runner), name="roundtables", restart=POLICY
        )
    optimizer = spawn_optimizer(system, store, restart=POLICY, runner=lambda: runner, record=record)
    scheduler: ActorRef[SchedulerMsg] | None = None
    if child_backend is not None:  # automatic reviews need worker children
        from persona_mind.actors.scheduler import spawn_scheduler  # noqa: PLC0415

        # its default (on unless PI_PERSONA_MIND_OPTIMIZE=off) is read at its first message
        scheduler = spawn_scheduler(system, lambda: optimizer, append, restart=POLICY)
    ports = Ports(
        host=host,
        store=store,
        owner=owner,
        clock=clock,
        agent_dir=agent_dir,
        pack_files=_durable_pack_files,
        reminders=reminders,
        optimizer=optimizer,
        scheduler=scheduler,
        child_runner=runner,
        roundtables=desk,
    )
    factories = tuple(features)
    companion: ActorRef[CompanionMsg] = system.spawn(
        lambda: CompanionActor(ports, factories), name="companion", restart=POLICY
    )
    system.link(owner, companion)  # an Owner crash restarts the Companion, which resyncs
    return ActorTree(
        host=host,
        store=store,
        owner=owner,
        reminders=reminders,
        child_runner=runner,
        roundtables=desk,
        optimizer=optimizer,
        scheduler=scheduler,
        companion=companion,
        ports=ports,
    )
