"""The actor system: the root supervisor, the clock, the tracer, generations, shutdown.

Use it as an async context manager; leaving the block stops every actor in reverse start
order and fails whatever they still had queued. If the root supervisor escalated, leaving
the block raises ``Escalated`` (unless another exception is already propagating), and
:meth:`ActorSystem.wait_failed` lets a main loop react to it as it happens.

The system holds the runtime's one lifecycle **generation** counter. Only the Owner moves
it (:meth:`advance_generation`), and because the counter lives here rather than in the
Owner, an Owner restart can never send it backwards. The kernel reads it at every
delivery to drop stale envelopes, and moving it cancels work admitted under older ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from persona_mind.actors.kernel import _context
from persona_mind.actors.kernel._actor import Actor, ActorStatistics
from persona_mind.actors.kernel._cell import Cell
from persona_mind.actors.kernel._ref import ActorRef
from persona_mind.actors.kernel._supervisor import RestartPolicy, Supervisor
from persona_mind.actors.kernel._tasks import TaskTree
from persona_mind.actors.kernel._tracer import Tracer
from persona_mind.clock import Clock, MonotonicClock
from persona_mind.errors import ActorError, Escalated

__all__ = ("ActorSystem",)

M = TypeVar("M")


class ActorSystem:
    """Owns the supervision tree of one runtime."""

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        trace_path: Path | None = None,
        policy: RestartPolicy | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        self.clock: Clock = clock or MonotonicClock()
        self.tracer = tracer or Tracer.from_env(self.clock, trace_path)
        self.root = Supervisor(self, "root", policy or RestartPolicy(), None)
        self.tasks = TaskTree("root")
        """The task group every actor loop and escalation runs in (``_tasks.py``)."""
        self.failure: Escalated | None = None
        self._names: set[str] = set()
        self._failed: asyncio.Event | None = None
        self._stopped = False
        self.generation = 0
        """The current lifecycle generation (see the module doc)."""
        self.tracer.generation = lambda: self.generation

    async def __aenter__(self) -> ActorSystem:
        self._failed = asyncio.Event()
        self.tasks.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()
        if self.failure is not None and exc is None:
            raise self.failure

    def claim_name(self, name: str) -> None:
        """Reserve a unique actor/supervisor name (trace lines are keyed by it)."""
        if name in self._names:
            raise ActorError(f"an actor named {name!r} already exists; pick a unique name")
        self._names.add(name)

    def spawn(
        self,
        factory: Callable[[], Actor[M]],
        *,
        name: str,
        restart: RestartPolicy | None = None,
    ) -> ActorRef[M]:
        """Start an actor under the root supervisor."""
        if self._stopped:
            raise ActorError(f"the actor system is stopped; cannot spawn {name!r}")
        return self.root.spawn(factory, name=name, restart=restart)

    def supervisor(self, name: str, policy: RestartPolicy | None = None) -> Supervisor:
        """A supervisor under the root for a group of actors that fail together."""
        return self.root.supervisor(name, policy)

    def link(self, dependency: ActorRef[Any], dependent: ActorRef[Any]) -> None:
        """Restart ``dependent`` whenever ``dependency`` crashes and is restarted.

        A one-way Erlang link (OTP's ``rest_for_one`` between two actors that need not share
        a supervisor): an actor that mirrors another's state (the Companion, the Owner's)
        must not carry on with a view, or an exchange, that the crash cut in half. The
        dependent crashes after the message it is handling (through its own supervisor,
        so the restart counts against its intensity) and its new ``on_start`` reads the
        restarted dependency afresh. Linking twice is a no-op.
        """
        source, target = dependency._cell, dependent._cell
        if source is target:
            raise ActorError(f"an actor cannot be linked to itself ({source.name!r})")
        if target not in source.dependents:
            source.dependents.append(target)

    def escalated(self, failure: Escalated) -> None:
        """Called by the root supervisor when it gives up."""
        self.failure = failure
        if self._failed is not None:
            self._failed.set()

    async def wait_failed(self) -> Escalated:
        """Wait until the root escalates, and return why."""
        if self._failed is None:
            raise ActorError("enter the ActorSystem (async with) before waiting on it")
        await self._failed.wait()
        assert self.failure is not None
        return self.failure

    async def stop(self) -> None:
        """Stop every actor in reverse start order, then close the trace; idempotent."""
        if self._stopped:
            return
        self._stopped = True
        try:
            await self.root.stop()
            await self.root.settle_escalations()
        finally:
            await self.tasks.close()
            self.tracer.close()

    def advance_generation(self, at_least: int = 0) -> int:
        """Start a new lifecycle generation and return it (the Owner's call, nobody else's).

        The caller's own context moves to the new generation, so what the Owner sends next
        (its broadcast) is admitted under it; every actor's work admitted under an older
        generation is cancelled. ``at_least`` lets a restored Owner resume past a number it
        already published.
        """
        self.generation = max(self.generation + 1, at_least)
        if _context.admitted.get() is not None:
            _context.admitted.set(self.generation)
        if self.tracer.enabled:
            self.tracer.emit("generation", "system", gen=self.generation)
        for cell in self._cells():
            cell.jobs.generation_advanced(self.generation)
        return self.generation

    def _cells(self) -> list[Cell[object]]:
        out: list[Cell[object]] = []

        def walk(sup: Supervisor) -> None:
            for child in sup.children:
                if isinstance(child, Cell):
                    out.append(child)
                else:
                    walk(child)

        walk(self.root)
        return out

    def statistics(self) -> list[ActorStatistics]:
        """Counters of every actor, in start order (depth first)."""
        return [cell.ref.statistics() for cell in self._cells()]

    def trace_child(self, actor: str, phase: str, **detail: object) -> None:
        """Record a child-process event (spawn, exit, signal…) for the runner actors."""
        if self.tracer.enabled:
            self.tracer.emit("child", actor, reason=phase, detail=dict(detail))
