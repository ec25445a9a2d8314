"""A manual clock for deterministic tests: time moves only when the test says so.

``advance(seconds)`` fires every timer that falls due, in time order (ties in the order
they were scheduled), setting the clock to each timer's due time as it fires. Timer
callbacks run synchronously inside ``advance``; a timer that *sends a message* therefore
queues it before ``advance`` returns, and the test then awaits whatever reply or probe
event proves the effect — never a sleep.

``ManualClock(autojump=True)`` is trio's ``MockClock(autojump_threshold=0)``: whenever
every task on the loop is blocked and a timer is pending, the clock jumps to the next
deadline by itself, so a test can simply ``await`` a five-minute cooldown. "Blocked" is
read off the loop's ready queue (asyncio has no public probe for it); a task waiting on
real IO counts as blocked, exactly as in trio. Timers keep the context they were armed
in, so a timer message carries the generation its actor was admitted under.
"""

from __future__ import annotations

import asyncio
import contextvars
import heapq
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from persona_mind.messages._base import Recipient

__all__ = ("ManualClock", "wait_all_tasks_blocked")

_SETTLED_ROUNDS = 3
"""Consecutive loop iterations in which only the waiting task was runnable."""


def _only_me_ready(loop: asyncio.AbstractEventLoop) -> bool:
    return len(getattr(loop, "_ready", ())) == 0


async def wait_all_tasks_blocked() -> None:
    """Return once every other task on the loop is blocked (trio's synchronisation point).

    A test that started work and wants "everything that can happen now has happened" awaits
    this instead of a hand-counted loop of ``sleep(0)``: it yields until the loop's ready
    queue held nothing but this task for a few iterations in a row (asyncio has no public
    probe; the ready queue is read the way ``ManualClock(autojump=True)`` reads it). A task
    waiting on real IO or a thread counts as blocked, as in trio.
    """
    loop = asyncio.get_running_loop()
    quiet = 0
    while quiet < _SETTLED_ROUNDS:
        await asyncio.sleep(0)
        quiet = quiet + 1 if _only_me_ready(loop) else 0


DEFAULT_WALL_START = 1_790_000_000.0  # 2026-09-21T…Z: a fixed, plausible epoch for tests


class _Timer:
    __slots__ = ("callback", "cancelled", "context", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False
        self.context = contextvars.copy_context()

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A :class:`persona_mind.clock.Clock` whose time advances only on :meth:`advance`."""

    def __init__(
        self, *, monotonic: float = 0.0, wall: float = DEFAULT_WALL_START, autojump: bool = False
    ) -> None:
        self._now = monotonic
        self._wall_offset = wall - monotonic
        self._heap: list[tuple[float, int, _Timer]] = []
        self._seq = itertools.count()
        self.autojump = autojump
        self.jumps = 0
        """How many times autojump moved the clock (a test can assert it did)."""
        self._jumper: asyncio.Task[None] | None = None

    def monotonic(self) -> float:
        return self._now

    def wall(self) -> float:
        return self._now + self._wall_offset

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(self._now + max(0.0, delay), callback)
        heapq.heappush(self._heap, (timer.when, next(self._seq), timer))
        if self.autojump and (self._jumper is None or self._jumper.done()):
            self._jumper = asyncio.get_running_loop().create_task(
                self._jump_when_idle(), name="manual-clock-autojump"
            )
        return timer

    async def _jump_when_idle(self) -> None:
        """Advance to the next deadline each time the loop has nothing else to run.

        Ends when no timer is pending (the next ``call_later`` starts it again), so an
        idle test leaves no task behind.
        """
        loop = asyncio.get_running_loop()
        idle = 0
        while self.pending():
            await asyncio.sleep(0)
            idle = idle + 1 if _only_me_ready(loop) else 0
            if idle >= _SETTLED_ROUNDS:  # settled across iterations: every task is blocked
                due = self.next_due()
                if due is not None:
                    self.advance(due)
                    self.jumps += 1
                idle = 0

    def send_after(self, delay: float, ref: Recipient, message: object) -> _Timer:
        def fire() -> None:
            ref.tell_if_alive(message)

        return self.call_later(delay, fire)

    async def sleep(self, delay: float) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not fut.done():
                fut.set_result(None)

        timer = self.call_later(delay, wake)
        try:
            await fut
        finally:
            timer.cancel()

    def advance(self, seconds: float) -> int:
        """Move time forward by ``seconds``, firing due timers in order; returns how many fired."""
        if seconds < 0:
            raise ValueError("a ManualClock never goes backwards")
        target = self._now + seconds
        fired = 0
        while self._heap and self._heap[0][0] <= target:
            when, _, timer = heapq.heappop(self._heap)
            if timer.cancelled:
                continue
            self._now = max(self._now, when)
            timer.context.run(timer.callback)
            fired += 1
        self._now = target
        return fired

    def pending(self) -> int:
        """Timers scheduled and not yet fired or cancelled."""
        return sum(1 for _, _, t in self._heap if not t.cancelled)

    def next_due(self) -> float | None:
        """Seconds until the next live timer, or ``None`` if there is none."""
        live = [when for when, _, t in self._heap if not t.cancelled]
        return (min(live) - self._now) if live else None
