"""A cell's background work, deferred answers and promises, across its incarnations.

A component of :class:`~persona_mind.actors.kernel._cell.Cell` (composition, not a base
class): the cell opens one task group per incarnation and hands it here as a
:class:`~persona_mind.actors.kernel._work.WorkGroup`; this object starts work in it,
turns work outcomes into messages or answers, and keeps every :class:`Deferred` not yet
settled — ``defer``'s and ``promise``'s alike — so that the end of an incarnation fails
each one with ``ActorStopped`` whatever ended it (a stop, a crash, a ``BaseException``
that aborted the group). No asker is left to its timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from persona_mind.actors.kernel import _context, _work
from persona_mind.actors.kernel._actor import Deferred
from persona_mind.actors.kernel._envelope import OwnEnvelope
from persona_mind.actors.kernel._work import Cancelled, Failed, Ok, Outcome, Work, WorkGroup
from persona_mind.errors import ActorError, ActorStopped, UnknownMessage

if TYPE_CHECKING:
    from persona_mind.actors.kernel._cell import Cell

__all__ = ("CellWork", "chain")

M = TypeVar("M")
T = TypeVar("T")


class CellWork(Generic[M]):
    """The work of one cell (see the module doc)."""

    def __init__(self, cell: Cell[M]) -> None:
        self._cell = cell
        self.group: WorkGroup | None = None
        """The running incarnation's work group (``None`` between incarnations)."""
        self.epoch = 0
        """Moves at every incarnation's start and end: outcomes of an earlier epoch's work
        never reach a later incarnation."""
        self._promises: dict[str, Deferred] = {}
        self._deferred: set[Deferred] = set()

    def opened(self, group: WorkGroup) -> None:
        self.epoch += 1
        self.group = group

    def _running(self) -> WorkGroup:
        if self.group is None:
            raise ActorError(f"{self._cell.name!r} is not running; work starts only while it runs")
        return self.group

    def own(self, message: object, generation: int | None) -> None:
        """Deliver the actor's own bookkeeping (never dropped as stale)."""
        cell = self._cell
        if cell.closed:
            return
        if cell.accepts is not None and not isinstance(message, cell.accepts):
            raise UnknownMessage(cell.name, message)
        env = OwnEnvelope(message, generation, None)
        if cell.tracer.enabled:
            cell.trace.send(env)
        cell.mailbox.put(env)

    def start_work(
        self, key: str, work: Callable[[], Awaitable[T]], on_done: Callable[[Outcome[T]], M] | None
    ) -> None:
        group = self._running()
        epoch = self.epoch

        def settle(record: Work, outcome: Outcome[T]) -> None:
            if on_done is not None and epoch == self.epoch:
                self.own(on_done(outcome), record.generation)

        group.start(key, _context.admitted.get(), work, settle, "work")

    def start_deferred(self, key: str, work: Callable[[], Awaitable[T]]) -> Deferred:
        """Run ``work`` in the incarnation's group; the Deferred settles with its result
        (cancelled: the asker gets ``ActorStopped``, or ``StaleGeneration`` if a newer
        generation cancelled it; a ``BaseException`` that is not an ``Exception``: the asker
        gets ``ActorStopped`` before it propagates). An asker that gives up cancels the
        work."""
        group = self._running()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def settle(record: Work, outcome: Outcome[T]) -> None:
            if future.done():
                return
            match outcome:
                case Cancelled() if record.stale is not None:
                    future.set_exception(record.stale)
                case Cancelled():
                    future.cancel()
                case Failed(error=error):
                    future.set_exception(error)
                case Ok(value=value):
                    future.set_result(value)

        group.start(key, _context.admitted.get(), work, settle, "deferred")

        def abandoned() -> None:
            self.cancel(key, "the asker went away")

        deferred = Deferred(future, key, abandoned)
        self._deferred.add(deferred)
        future.add_done_callback(lambda _: self._deferred.discard(deferred))
        return deferred

    def promise(self, key: str, on_abandoned: Callable[[], None] | None) -> Deferred:
        if key in self._promises:
            raise ActorError(f"{self._cell.name!r} already has a promise {key!r}; pick a new key")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        deferred = Deferred(future, key, on_abandoned)
        self._promises[key] = deferred

        def forget(_: asyncio.Future[Any]) -> None:
            if self._promises.get(key) is deferred:
                del self._promises[key]

        future.add_done_callback(forget)
        return deferred

    def keys(self) -> frozenset[str]:
        return frozenset(self.group.works) if self.group is not None else frozenset()

    def cancel(self, key: str, reason: str) -> bool:
        """Cancel once: a second request while the work is still unwinding (a child being
        stopped gracefully) must not interrupt its cleanup with another CancelledError."""
        return self.group is not None and self.group.cancel(key, reason)

    def generation_advanced(self, generation: int) -> None:
        """Cancel work admitted under an older generation (its answer could only be stale)."""
        if self._cell.bound and self.group is not None:
            self.group.cancel_stale(self._cell.name, generation)

    async def end(self, reason: str) -> None:
        """Cancel every piece of this incarnation's work and wait (bounded) until it ends;
        whatever outlives the grace is finished by the task group's exit."""
        self.epoch += 1
        if self.group is not None:
            await self.group.end(reason, _work.STOP_GRACE)

    def fail_deferred(self, why: str) -> None:
        """Fail the asker of every ``defer`` not settled yet: the incarnation is ending and
        its work is being cancelled, so whatever it returns later answers nobody (an asker
        never waits out the grace a stubborn piece of work gets)."""
        name = self._cell.name
        for deferred in list(self._deferred):
            deferred.reject(ActorStopped(name, f"{why}; its deferred work was cancelled"))
        self._deferred.clear()

    def fail_outstanding(self, why: str) -> None:
        """Fail every deferred answer not settled yet, promises included (``on_stop`` may
        have answered some more precisely before this runs)."""
        self.fail_deferred(why)
        name = self._cell.name
        for deferred in list(self._promises.values()):
            deferred.reject(ActorStopped(name, why))
        self._promises.clear()


def chain(name: str, deferred: Deferred, reply: asyncio.Future[Any]) -> None:
    """Answer ``reply`` when ``deferred`` settles; an asker that gives up abandons it."""
    future = deferred.future

    def settle(done: asyncio.Future[Any]) -> None:
        if reply.done():
            if not done.cancelled():
                done.exception()  # retrieved: the asker went away
            return
        if done.cancelled():
            reply.set_exception(ActorStopped(name, "its deferred work was cancelled"))
        elif (error := done.exception()) is not None:
            reply.set_exception(error)
        else:
            reply.set_result(done.result())

    def asker_gone(done: asyncio.Future[Any]) -> None:
        if done.cancelled():
            deferred.abandon()  # nobody waits any more: stop the work (and its children)

    future.add_done_callback(settle)
    reply.add_done_callback(asker_gone)
