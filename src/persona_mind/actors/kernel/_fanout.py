"""Fan-out / fan-in with a deadline: all legs succeed, or nothing is returned.

A round-table phase asks N personas at once. If one fails (or the deadline passes), the
others are cancelled at once and the caller gets ``FanOutFailed`` — never a partial set
of answers that could be mistaken for a complete phase. The deadline reads the injected
clock, so tests drive it with a ManualClock.

The legs are children of one anyio task group, so the fan-out cannot return (or raise)
while a leg lives. As in the actors' work groups (``_work.py``), a leg is cancelled *once*
with asyncio's cancellation, not through the group's scope: a leg answers a cancellation
by stopping its child process and awaiting that (``run_child``), which a level-triggered
scope would cut short. A fan-out runs once per round-table phase, next to child
processes, so the anyio group's per-leg cost (docs/actors.md, "Concurrency") is noise.

The unwind is bounded as an actor's work is: a leg still running ``STOP_GRACE`` after its
cancellation ignored it, so the group's cancel scope is cancelled (level-triggered: every
await a leg makes fails from then on), with a warning, and the group's exit awaits it. (One
scope for the group, not one per leg: a scope per leg cost a 5-leg fan-out ~40 % more.)
A leg that raises a ``BaseException`` that is not an ``Exception`` fails the fan-out like
any other leg (``FanOutFailed``, the exception as its cause) instead of escaping as a bare
``BaseExceptionGroup``; only ``KeyboardInterrupt`` and ``SystemExit`` still propagate (they
end the runtime).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from persona_mind.actors.kernel import _work
from persona_mind.clock import Clock, MonotonicClock
from persona_mind.errors import FanOutFailed

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

__all__ = ("fan_out",)

T = TypeVar("T")

DEADLINE_LEG = "<deadline>"

_FATAL = (KeyboardInterrupt, SystemExit)
_log = logging.getLogger("persona_mind.actors")


class _Legs:
    """The bookkeeping of one fan-out: results, the first failure, the running legs."""

    def __init__(self, count: int) -> None:
        self.results: dict[str, Any] = {}
        self.failure: tuple[str, BaseException] | None = None
        self.running: dict[str, asyncio.Task[Any]] = {}
        self.left = count
        self.unwinding = False
        self.decided = asyncio.Event()  # every leg succeeded, or the first failure
        self.ended = asyncio.Event()  # every leg has ended
        if count == 0:
            self.decided.set()
            self.ended.set()

    def fail(self, name: str, error: BaseException) -> None:
        if self.failure is None and not self.unwinding:
            self.failure = (name, error)
            self.decided.set()

    async def run(self, name: str, leg: Callable[[], Awaitable[Any]]) -> None:
        self.running[name] = asyncio.current_task()  # type: ignore[assignment]
        try:
            if not self.unwinding:  # else: the fan-out failed before this leg started
                self.results[name] = await leg()
        except asyncio.CancelledError:
            self.fail(name, asyncio.CancelledError(f"leg {name!r} was cancelled"))
        except Exception as exc:
            self.fail(name, exc)
        except BaseException as exc:  # a fan-out failure too; fatal ones end the runtime
            self.fail(name, exc)
            if isinstance(exc, _FATAL):
                raise
        finally:
            del self.running[name]
            self.left -= 1
            if self.left == 0:
                self.decided.set()
                self.ended.set()

    async def unwind(self, group: TaskGroup) -> None:
        """Cancel every running leg once and wait until all have ended; past
        ``STOP_GRACE`` the group's scope is cancelled and the group's exit awaits the legs."""
        self.unwinding = True
        for task in self.running.values():
            task.cancel()
        if self.ended.is_set():
            return
        grace = _work.STOP_GRACE
        try:
            async with asyncio.timeout(grace):
                await self.ended.wait()
        except TimeoutError:
            _log.warning(
                "fan-out legs %s ignored cancellation for %gs; cancelling the group's scope",
                ", ".join(sorted(self.running)),
                grace,
            )
            # level-triggered from here: every await a leg makes fails (this one's too, so
            # return and let the group's exit await them; the scope absorbs its own cancel)
            group.cancel_scope.cancel()


async def fan_out(
    legs: Mapping[str, Callable[[], Awaitable[T]]],
    *,
    timeout: float,
    clock: Clock | None = None,
) -> dict[str, T]:
    """Run every leg concurrently; return ``{name: result}`` in the legs' order.

    Raises ``FanOutFailed`` naming the first failed leg (or ``<deadline>``) after
    cancelling and awaiting every unfinished sibling. Cancelling the caller cancels all
    legs too, and awaits them.
    """
    clock = clock or MonotonicClock()
    state = _Legs(len(legs))
    async with anyio.create_task_group() as group:
        for name, leg in legs.items():
            group.start_soon(state.run, name, leg, name=f"leg:{name}")

        def expire() -> None:
            state.fail(DEADLINE_LEG, TimeoutError(f"the fan-out passed its {timeout:g}s deadline"))

        handle = clock.call_later(timeout, expire)
        try:
            await state.decided.wait()
        finally:
            handle.cancel()
            await state.unwind(group)  # a no-op when every leg already ended
    if state.failure is not None:
        failed, cause = state.failure
        raise FanOutFailed(failed, cause) from cause
    return {name: state.results[name] for name in legs}
