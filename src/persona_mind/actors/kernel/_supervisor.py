"""One-for-one supervision with an OTP-style restart intensity.

A crashed child is restarted alone (one-for-one). If a child crashes more than
``max_restarts`` times within ``within`` seconds of the system clock, restarting is not
helping: the supervisor stops all its children in reverse start order and escalates to
its parent, which treats the whole subtree as one crashed child (restart it, or escalate
further). At the root, escalation stops the system and ``ActorSystem`` raises
``Escalated``. No polling: crashes arrive from the child's own task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from persona_mind.actors.kernel._cell import Cell
from persona_mind.errors import ActorError, Escalated

if TYPE_CHECKING:
    from persona_mind.actors.kernel._actor import Actor
    from persona_mind.actors.kernel._ref import ActorRef
    from persona_mind.actors.kernel._system import ActorSystem

__all__ = ("RestartPolicy", "Supervisor")

M = TypeVar("M")


class RestartPolicy(msgspec.Struct, frozen=True):
    """At most ``max_restarts`` restarts within ``within`` seconds, then escalate."""

    max_restarts: int = 3
    within: float = 5.0

    def __post_init__(self) -> None:
        if self.max_restarts < 0 or self.within <= 0:
            raise ValueError("RestartPolicy needs max_restarts >= 0 and within > 0")


class Supervisor:
    """A node of the supervision tree: actors and child supervisors, in start order."""

    def __init__(
        self, system: ActorSystem, name: str, policy: RestartPolicy, parent: Supervisor | None
    ) -> None:
        self.system = system
        self.name = name
        self.policy = policy
        self.parent = parent
        self.children: list[Cell[Any] | Supervisor] = []
        self.restart_times: list[float] = []
        self.stopped = False
        self._escalation: asyncio.Future[None] | None = None
        """Set when the escalation running in the system's task group has ended."""
        self._escalator: asyncio.Task[Any] | None = None

    def spawn(
        self,
        factory: Callable[[], Actor[M]],
        *,
        name: str,
        restart: RestartPolicy | None = None,
    ) -> ActorRef[M]:
        """Start an actor under this supervisor; ``restart`` overrides the policy for it."""
        if self.stopped:
            raise ActorError(f"supervisor {self.name!r} is stopped; cannot spawn {name!r}")
        self.system.claim_name(name)
        cell: Cell[M] = Cell(self.system, name, factory, self, restart)
        cell.prepare()
        self.children.append(cell)
        cell.start()
        return cell.ref

    def supervisor(self, name: str, policy: RestartPolicy | None = None) -> Supervisor:
        """A child supervisor whose escalation this supervisor handles."""
        self.system.claim_name(name)
        child = Supervisor(self.system, name, policy or self.policy, self)
        self.children.append(child)
        return child

    def _within_intensity(self, times: list[float], policy: RestartPolicy) -> bool:
        now = self.system.clock.monotonic()
        times[:] = [t for t in times if now - t < policy.within]
        if len(times) >= policy.max_restarts:
            return False
        times.append(now)
        return True

    def child_crashed(self, cell: Cell[Any], error: BaseException) -> bool:
        """Called from a crashed child's task: ``True`` to restart it, else escalate."""
        if self.stopped:
            return False
        if self._within_intensity(cell.restart_times, cell.policy or self.policy):
            return True
        self._start_escalation(cell.name, error)
        return False

    def _start_escalation(self, child: str, error: BaseException) -> None:
        """Escalate in a child of the system's task group (a crash decides it in the crashed
        actor's own task, which this escalation is about to stop)."""
        if self._escalation is None:
            ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._escalation = ended

            async def escalate() -> None:
                self._escalator = asyncio.current_task()
                self.system.tasks.enter()
                try:
                    await self._escalate(child, error)
                finally:
                    ended.set_result(None)

            try:
                self.system.tasks.start_soon(escalate, f"escalate:{self.name}", ended)
            except ActorError:  # the system is closing: its stop stops this subtree too
                ended.set_result(None)

    async def _escalate(self, child: str, error: BaseException) -> None:
        if self.system.tracer.enabled:
            self.system.tracer.emit("escalate", self.name, reason=f"{child}: {error!r}")
        await self.stop()
        escalated = Escalated(
            f"supervisor {self.name!r} gave up: {child!r} crashed more than its restart "
            f"intensity allows ({type(error).__name__}: {error})"
        )
        escalated.__cause__ = error
        if self.parent is None:
            self.system.escalated(escalated)
        else:
            self.parent.subtree_failed(self, escalated)

    def subtree_failed(self, child: Supervisor, error: Escalated) -> None:
        """A child supervisor escalated: restart its whole subtree or escalate further."""
        if not self.stopped and self._within_intensity(child.restart_times, self.policy):
            child.restart()
        else:
            self._start_escalation(child.name, error)

    def restart(self) -> None:
        """Restart every child in start order (after this subtree escalated)."""
        self.stopped = False
        self._escalation = self._escalator = None
        for child in self.children:
            if isinstance(child, Supervisor):
                child.restart()
            else:
                child.restart_stopped()

    async def stop(self) -> None:
        """Stop every child in reverse start order; idempotent."""
        self.stopped = True
        for child in reversed(self.children):
            await child.stop("stopped") if isinstance(child, Cell) else await child.stop()

    async def settle_escalations(self) -> None:
        """Await every escalation still running in this subtree (the system's stop does, so
        no escalation task outlives the system that started it)."""
        ended = self._escalation
        here = self._escalator is not None and self._escalator is asyncio.current_task()
        if ended is not None and not ended.done() and not here:
            await asyncio.wait({ended})
        for child in self.children:
            if isinstance(child, Supervisor):
                await child.settle_escalations()
