"""The clock seam: every timer in persona-mind reads an injected :class:`Clock`.

Why a seam: the seeds are full of durations (48 h TTLs, 10 min plans, 5 min cooldowns,
2 s coalescing, 180 s deadlines, reminders). Tests must prove them at their boundaries
without sleeping, so production code never calls ``time`` or ``asyncio.sleep`` for a
timer; it asks the clock. :class:`MonotonicClock` is the real one;
``persona_mind.testing.ManualClock`` is advanced by tests.

Timers arrive as *messages*: :meth:`Clock.send_after` tells a message to an actor when
the time comes, so a timer firing is ordered in that actor's mailbox like any other event.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from persona_mind.messages._base import Recipient

__all__ = ("Clock", "MonotonicClock", "TimerHandle")


class TimerHandle(Protocol):
    """A scheduled timer; :meth:`cancel` is idempotent."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Time source and timer scheduler."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes backwards (deadlines, trace times)."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch (durable timestamps, TTLs, expiry)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        """Run ``callback`` on the event loop after ``delay`` seconds."""
        ...

    def send_after(self, delay: float, ref: Recipient, message: object) -> TimerHandle:
        """Tell ``message`` to ``ref`` after ``delay`` seconds (a timer as a message).

        The message is sent in the context the timer was armed in, so it carries the
        generation its actor was admitted under (a replaced session's timer is dropped).
        """
        ...

    async def sleep(self, delay: float) -> None:
        """Wait ``delay`` seconds of this clock's time."""
        ...


class MonotonicClock:
    """The real clock: ``time.monotonic``/``time.time`` and the running loop's timers."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        return asyncio.get_running_loop().call_later(max(0.0, delay), callback)

    def send_after(self, delay: float, ref: Recipient, message: object) -> TimerHandle:
        def fire() -> None:
            ref.tell_if_alive(message)

        return self.call_later(delay, fire)

    async def sleep(self, delay: float) -> None:
        await asyncio.sleep(delay)
