"""The IO thread: blocking IO for async actors without blocking the event loop.

The Store must fsync, rename and wait on file locks; doing that on the loop would stall
every actor. A :class:`IOThread` owns one pykka ``ThreadingActor`` (one thread), so
the blocking calls of a process are serialised in submission order. The caller awaits a
plain asyncio future that the thread completes with ``loop.call_soon_threadsafe`` —
never a pykka future, whose ``get()`` would block the loop.
"""

from __future__ import annotations

import asyncio
import queue
from collections.abc import Callable
from typing import Any, TypeVar

from persona_mind.errors import ActorStopped

__all__ = ("IOThread",)

T = TypeVar("T")


def _settle_ok(fut: asyncio.Future[Any], value: object) -> None:
    if not fut.done():
        fut.set_result(value)


def _settle_err(fut: asyncio.Future[Any], error: BaseException) -> None:
    if not fut.done():
        fut.set_exception(error)


def _on_receive(message: Any) -> None:
    """Run one submitted call and hand its outcome to the caller's loop."""
    fn, args, loop, fut = message
    try:
        value = fn(*args)
    except BaseException as exc:  # handed to the awaiting caller, not swallowed
        loop.call_soon_threadsafe(_settle_err, fut, exc)
    else:
        loop.call_soon_threadsafe(_settle_ok, fut, value)


def _start_worker() -> Any:
    """Start the pykka ThreadingActor; pykka is imported here, when the first bridge starts."""
    import pykka  # noqa: PLC0415 - not needed until blocking IO is

    class _Worker(pykka.ThreadingActor):
        """Runs submitted calls one at a time on its own thread."""

        @staticmethod
        def _create_actor_inbox() -> Any:
            # pykka's actor-kind hook: a C-level SimpleQueue (get/put/empty are all pykka
            # uses) instead of queue.Queue's lock-and-condition, which dominates a round trip
            return queue.SimpleQueue()

        def on_receive(self, message: Any) -> None:
            _on_receive(message)

    return _Worker.start()


class IOThread:
    """A single worker thread that runs blocking calls for async code, in order."""

    def __init__(self, name: str = "bridge") -> None:
        self.name = name
        self._ref: Any = _start_worker()
        self._open = True

    async def call(self, fn: Callable[..., T], *args: object) -> T:
        """Run ``fn(*args)`` on the bridge thread and return its result.

        Checkpoint. Raises whatever ``fn`` raised, or ``ActorStopped`` once closed.
        Cancelling the caller does not interrupt ``fn`` (a blocking call cannot be
        interrupted safely); its result is discarded.
        """
        if not self._open:
            raise ActorStopped(self.name, "closed")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[T] = loop.create_future()
        self._ref.tell((fn, args, loop, fut))
        return await fut

    def close(self) -> None:
        """Finish the calls already submitted, then end the thread (does not wait)."""
        if self._open:
            self._open = False
            self._ref.stop(block=False)

    async def aclose(self) -> None:
        """Close and wait until the thread has finished its queued calls."""
        if self._open:
            self._open = False
            await self.call_after_close(lambda: None)

    async def call_after_close(self, fn: Callable[[], None]) -> None:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._ref.tell((fn, (), loop, fut))
        self._ref.stop(block=False)
        await fut
