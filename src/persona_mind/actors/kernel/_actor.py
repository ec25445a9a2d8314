"""The actor base class: state owned by one instance, handled one message at a time.

An :class:`Actor` owns its state and handles one message at a time; the single-consumer
mailbox is what serialises access, so control-plane state needs no locks. The kernel
(``_cell.py``) binds ``ref``, ``system``, ``clock`` and ``name`` before :meth:`on_start`.

Failure model (OTP-flavoured, see docs/actors.md):

* A handler that raises a :class:`~persona_mind.errors.PersonaMindError` is *refusing* the
  request: the error goes to the asker and the actor keeps running.
* Anything else a handler raises — any exception, a stray cancellation, any other
  ``BaseException`` — is a *crash*: the asker gets ``ActorStopped`` (the cause chained),
  every queued ask gets ``ActorStopped``, background work is cancelled and awaited, and the
  supervisor restarts the actor or escalates. ``KeyboardInterrupt`` and ``SystemExit`` fail
  the asks the same way and then end the runtime.
* A message stamped with a generation older than the runtime's current one is dropped,
  counted and traced before ``receive``; an asker gets ``StaleGeneration``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, TypeVar

from persona_mind.actors.kernel import _context
from persona_mind.actors.kernel._protocol import accepted_types

if TYPE_CHECKING:
    from persona_mind.actors.kernel._cell import Cell
    from persona_mind.actors.kernel._ref import ActorRef
    from persona_mind.actors.kernel._system import ActorSystem
    from persona_mind.actors.kernel._work import Outcome
    from persona_mind.clock import Clock

__all__ = ("Actor", "ActorStatistics", "Deferred")

M = TypeVar("M")
T = TypeVar("T")


class Deferred:
    """Returned by a handler to answer an ask later, without holding the mailbox.

    The one way to answer late (no reply future or reply-to ref ever travels inside a
    message). Two ways to make one:

    * :meth:`Actor.defer` — the answer is a piece of background work's result; the actor
      handles its next message while the work runs (parallel consults side by side);
    * :meth:`Actor.promise` — the actor answers from a later message of its own with
      :meth:`resolve` / :meth:`reject` (a child's outcome arriving as bookkeeping).

    Either way the kernel answers the asker when the deferred settles, fails it with
    ``ActorStopped`` if the actor stops or crashes first, and calls ``on_abandoned`` (or
    cancels the work) when the asker gives up.
    """

    __slots__ = ("future", "key", "on_abandoned")

    def __init__(
        self,
        future: asyncio.Future[Any],
        key: str,
        on_abandoned: Callable[[], None] | None = None,
    ) -> None:
        self.future = future
        self.key = key
        self.on_abandoned = on_abandoned

    def resolve(self, value: object) -> None:
        """Answer the asker with ``value`` (ignored once settled)."""
        if not self.future.done():
            self.future.set_result(value)

    def reject(self, error: BaseException) -> None:
        """Fail the asker with ``error`` (ignored once settled)."""
        if not self.future.done():
            self.future.set_exception(error)

    def abandon(self) -> None:
        """The asker went away: tell the actor (``defer`` cancels its work this way)."""
        if not self.future.done() and self.on_abandoned is not None:
            self.on_abandoned()


class Actor(Generic[M]):
    """Base class of every actor: subclass with your message union and implement ``receive``."""

    _accepts: ClassVar[tuple[type, ...] | None] = None
    generation_bound: ClassVar[bool] = True
    """Whether stale envelopes are dropped and older work is cancelled for this actor.

    Every role actor is bound; only a pure transport (the HostProxy, which carries the
    requests a session made before it changed) sets ``False``."""
    ref: ActorRef[M]
    system: ActorSystem
    clock: Clock
    name: str
    _cell: Cell[M]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        accepts = accepted_types(cls, Actor)
        if accepts is not None:
            cls._accepts = accepts

    async def on_start(self) -> None:
        """Called in the actor's task before the first message (and after each restart)."""

    async def on_stop(self) -> None:
        """Called when the actor stops or crashes; keep it short and bounded."""

    async def receive(self, message: M) -> object:
        """Handle one message; the return value answers an ask."""
        raise NotImplementedError

    # -- generations -----------------------------------------------------------------
    @property
    def admitted(self) -> int:
        """The generation the message being handled (or this work) was admitted under."""
        gen = _context.admitted.get()
        return self.system.generation if gen is None else gen

    # -- restart contract ------------------------------------------------------------
    def checkpoint(self, state: object) -> None:
        """Keep ``state`` for the next incarnation (read it back with :attr:`recovered`).

        The kernel holds it in the actor's cell, which outlives restarts; an actor whose
        restart contract keeps something (the Owner keeps identity, cwd and subscribers)
        checkpoints it after every change. Checkpointed state must be immutable.
        """
        self._cell.saved = state

    @property
    def recovered(self) -> object | None:
        """What the previous incarnation checkpointed; ``None`` on the first start."""
        return self._cell.saved

    # -- background work -------------------------------------------------------------
    def start_work(
        self,
        key: str,
        work: Callable[[], Awaitable[T]],
        on_done: Callable[[Outcome[T]], M] | None = None,
    ) -> None:
        """Run ``work`` in the background; its outcome comes back as ``on_done(outcome)``.

        The outcome is this actor's bookkeeping: it is delivered even when its generation
        went stale (so the actor can clean up), but what the handler sends on carries the
        work's own generation and is dropped downstream. Work is cancelled by
        :meth:`cancel_work`, by a newer generation than the one it was admitted under, and
        on stop, crash or restart (then no outcome is delivered: that instance is gone).
        """
        self._cell.jobs.start_work(key, work, on_done)

    def defer(self, key: str, work: Callable[[], Awaitable[object]]) -> Deferred:
        """Answer the current ask with ``work``'s result when it finishes (see Deferred).

        The work is cancellable with :meth:`cancel_work` under ``key``; a newer generation
        cancels it (the asker gets ``StaleGeneration``); a stop, crash or restart cancels
        it (the asker gets ``ActorStopped``).
        """
        return self._cell.jobs.start_deferred(key, work)

    def promise(self, key: str, on_abandoned: Callable[[], None] | None = None) -> Deferred:
        """A :class:`Deferred` this actor settles itself from a later message.

        The kernel fails it with ``ActorStopped`` if this incarnation ends before it is
        settled, so the asker is always answered.
        """
        return self._cell.jobs.promise(key, on_abandoned)

    def cancel_work(self, key: str, reason: str = "cancelled") -> bool:
        """Cancel background work ``key``; ``False`` if none is running under that key."""
        return self._cell.jobs.cancel(key, reason)

    def work_keys(self) -> frozenset[str]:
        """Keys of the background work still running."""
        return self._cell.jobs.keys()


class ActorStatistics(NamedTuple):
    """Counters of one actor since it was first spawned."""

    name: str
    state: str
    queued: int
    delivered: int
    dropped_stale: int
    restarts: int
