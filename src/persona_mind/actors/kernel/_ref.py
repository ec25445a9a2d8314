"""The address of an actor: ``tell`` (never blocks) and ``ask`` (always answered).

Every send is stamped with the generation its sender was admitted under (the context's,
see ``_context.py``), or left unbound when sent from outside every actor; the kernel
drops stale ones at delivery. An explicit ``generation=`` overrides the stamp (tests, and
adapters that admitted work earlier).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from persona_mind.actors.kernel import _context
from persona_mind.actors.kernel._actor import ActorStatistics
from persona_mind.actors.kernel._envelope import Envelope
from persona_mind.errors import ActorError, ActorStopped, AskTimeout, UnknownMessage

if TYPE_CHECKING:
    from persona_mind.actors.kernel._cell import Cell
    from persona_mind.messages._base import Ask

__all__ = ("DEFAULT_ASK_TIMEOUT", "ActorRef")

M = TypeVar("M")
R = TypeVar("R")

DEFAULT_ASK_TIMEOUT = 30.0

_admitted = _context.admitted.get


class ActorRef(Generic[M]):
    """The address of an actor. Cheap to copy; valid across restarts."""

    __slots__ = ("_cell",)

    def __init__(self, cell: Cell[M]) -> None:
        self._cell = cell

    @property
    def name(self) -> str:
        return self._cell.name

    def is_alive(self) -> bool:
        """Whether messages sent now can still be delivered."""
        return not self._cell.closed

    def _envelope(
        self, message: object, generation: int | None, reply: asyncio.Future[Any] | None
    ) -> Envelope:
        cell = self._cell
        if cell.closed:
            raise ActorStopped(cell.name, cell.state)
        accepts = cell.accepts
        if (
            accepts is not None
            and type(message) not in cell.exact
            and not isinstance(message, accepts)
        ):
            raise UnknownMessage(cell.name, message)
        if generation is None:
            generation = _context.admitted.get()
        return Envelope(message, generation, reply)

    def tell(self, message: M, *, generation: int | None = None) -> None:
        """Queue ``message`` and return at once (never blocks).

        Raises ``ActorStopped`` if the actor is stopped and ``UnknownMessage`` if the
        type is outside its protocol — both before anything is queued.
        """
        cell = self._cell  # the envelope is built inline: tell is the kernel's hottest path
        if cell.closed:
            raise ActorStopped(cell.name, cell.state)
        accepts = cell.accepts
        if (
            accepts is not None
            and type(message) not in cell.exact
            and not isinstance(message, accepts)
        ):
            raise UnknownMessage(cell.name, message)
        env = Envelope(message, _admitted() if generation is None else generation, None)
        if cell.tracer.enabled:
            cell.trace.send(env)
        cell.mailbox.put(env)

    def tell_if_alive(self, message: object, *, generation: int | None = None) -> bool:
        """Tell unless the actor is gone (timers use this); ``True`` if queued."""
        try:
            self.tell(message, generation=generation)  # type: ignore[arg-type]  # timers carry the actor's own types
        except ActorError:
            return False
        return True

    @overload
    async def ask(
        self, message: Ask[R], *, timeout: float = ..., generation: int | None = ...
    ) -> R: ...

    @overload
    async def ask(
        self, message: M, *, timeout: float = ..., generation: int | None = ...
    ) -> object: ...

    async def ask(
        self,
        message: object,
        *,
        timeout: float = DEFAULT_ASK_TIMEOUT,
        generation: int | None = None,
    ) -> object:
        """Send ``message`` and wait for the handler's answer (typed ``R`` for ``Ask[R]``).

        Raises the handler's refusal (a ``PersonaMindError``), ``ActorStopped`` on stop,
        crash or restart, ``StaleGeneration`` if dropped as stale, ``AskTimeout`` when
        the system clock passes ``timeout``. If the handler moved on to a newer generation
        (it asked the Owner to start one), the asking actor adopts it. Checkpoint.
        """
        cell = self._cell
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        env = self._envelope(message, generation, fut)
        if cell.tracer.enabled:
            cell.trace.send(env)
        cell.mailbox.put(env)
        name = cell.name

        def expire() -> None:
            if not fut.done():
                fut.set_exception(AskTimeout(name, type(message).__name__, timeout))

        handle = cell.clock.call_later(timeout, expire)
        try:
            result = await fut
        finally:
            handle.cancel()
        settled = env.settled
        if settled is not None:
            mine = _context.admitted.get()
            if mine is not None and settled > mine:
                _context.admitted.set(settled)
        return result

    def request(
        self, message: Ask[R], *, timeout: float = DEFAULT_ASK_TIMEOUT
    ) -> asyncio.Future[R]:
        """Send ``message`` as an ask and return its answer's future without awaiting it.

        For an answer that must outlive the caller's wait: the kernel settles the future
        (answer, refusal, ``ActorStopped``, ``AskTimeout`` on the clock) whether or not
        anyone awaits it, so a caller cut off by a deadline can leave the answer to a done
        callback — no task needed (the Mind's index builds, as Store jobs). Cancelling the
        future withdraws nothing the actor already started; it only drops the answer.
        """
        cell = self._cell
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        env = self._envelope(message, None, fut)
        if cell.tracer.enabled:
            cell.trace.send(env)
        cell.mailbox.put(env)
        name = cell.name

        def expire() -> None:
            if not fut.done():
                fut.set_exception(AskTimeout(name, type(message).__name__, timeout))

        handle = cell.clock.call_later(timeout, expire)
        fut.add_done_callback(lambda _: handle.cancel())
        return fut

    async def stop(self, *, force: bool = False) -> None:
        """Stop this actor; idempotent.

        Graceful: the message being handled may finish (bounded by a grace period), then
        it stops. ``force=True`` cancels the handler at once. Either way the in-flight ask
        and every queued ask fail with ``ActorStopped`` and background work is awaited.
        """
        await self._cell.stop("stopped", force=force)

    def statistics(self) -> ActorStatistics:
        cell = self._cell
        return ActorStatistics(
            cell.name,
            cell.state,
            len(cell.mailbox),
            cell.delivered,
            cell.dropped_stale,
            cell.restarts,
        )

    def __repr__(self) -> str:
        return f"<ActorRef {self._cell.name} ({self._cell.state})>"
