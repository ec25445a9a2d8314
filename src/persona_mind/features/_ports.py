"""The ports a feature is built from: refs and clients of the actors it talks to.

The composition root (``persona_mind.runtime``) builds the whole actor tree first, then
one frozen :class:`Ports` value, and hands it to the Companion, which builds its features
from it. A feature therefore reaches the host, the Store, the Owner and the role actors it
needs — and nothing else: never the runtime, never another feature (those it asks through
the Companion's :class:`~persona_mind.feature.Peers` view). Refs stay valid across the
actors' restarts, so the same value serves every Companion incarnation.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import msgspec

if TYPE_CHECKING:
    from persona_mind.actors import ActorRef
    from persona_mind.actors.host_proxy import HostClient
    from persona_mind.actors.store import StoreClient
    from persona_mind.clock import Clock
    from persona_mind.feature import Feature, Peers
    from persona_mind.messages.optimizer import OptimizerMsg
    from persona_mind.messages.owner import OwnerMsg
    from persona_mind.messages.reminder import ReminderMsg
    from persona_mind.messages.roundtable_desk import DeskMsg
    from persona_mind.messages.runner import RunnerMessage
    from persona_mind.messages.scheduler import SchedulerMsg
    from persona_mind.persona.packs._fsio import PackFiles

__all__ = ("FeatureFactory", "Ports")

T = TypeVar("T")


class Ports(msgspec.Struct, frozen=True):
    """What a feature may reach (see the module doc).

    The role actors a runtime does not run are ``None``: the ChildRunner, the
    RoundtableDesk and the Scheduler exist only when a child backend is given.
    """

    host: HostClient
    """The host, through the HostProxy actor (requests queued in order)."""
    store: StoreClient
    """The Store actor: durable files and the process's one blocking-IO thread."""
    owner: ActorRef[OwnerMsg]
    clock: Clock
    agent_dir: Path
    pack_files: Callable[[], PackFiles]
    """Builds the pack store's durable file port (``storage.DurablePackFiles``) at the first
    session, so start-up never imports the storage engine."""
    reminders: ActorRef[ReminderMsg] | None = None
    optimizer: ActorRef[OptimizerMsg] | None = None
    scheduler: ActorRef[SchedulerMsg] | None = None
    child_runner: ActorRef[RunnerMessage] | None = None
    roundtables: ActorRef[DeskMsg] | None = None

    async def offload(self, fn: Callable[[], T]) -> T:
        """Run blocking domain work on the Store's IO thread (``RunIO``), the process's one
        serial blocking-IO executor; ``fn`` must not wait on an actor (``StoreReentry``)."""
        return await self.store.run_io(fn, "offloaded job")


FeatureFactory = Callable[["Ports", "Peers"], "Feature"]
"""Builds one feature for one Companion incarnation (a feature class is one)."""
