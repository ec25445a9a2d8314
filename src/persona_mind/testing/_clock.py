"""A manual clock for deterministic tests: time moves only when the test says so.

``advance(seconds)`` fires every timer that falls due, in time order (ties in the order
they were scheduled), setting the clock to each timer's due time as it fires. Timer
callbacks run synchronously inside ``advance``; a timer that *sends a message* therefore
queues it before ``advance`` returns, and the test then awaits whatever reply or probe
event proves the effect — never a sleep.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from persona_mind.actors import ActorRef

__all__ = ("ManualClock",)

DEFAULT_WALL_START = 1_790_000_000.0  # 2026-09-21T…Z: a fixed, plausible epoch for tests


class _Timer:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A :class:`persona_mind.clock.Clock` whose time advances only on :meth:`advance`."""

    def __init__(self, *, monotonic: float = 0.0, wall: float = DEFAULT_WALL_START) -> None:
        self._now = monotonic
        self._wall_offset = wall - monotonic
        self._heap: list[tuple[float, int, _Timer]] = []
        self._seq = itertools.count()

    def monotonic(self) -> float:
        return self._now

    def wall(self) -> float:
        return self._now + self._wall_offset

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(self._now + max(0.0, delay), callback)
        heapq.heappush(self._heap, (timer.when, next(self._seq), timer))
        return timer

    def send_after(self, delay: float, ref: ActorRef[Any], message: object) -> _Timer:
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
            timer.callback()
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
