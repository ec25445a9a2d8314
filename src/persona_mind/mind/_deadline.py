"""``with_deadline``: run awaitable work against a deadline of the injected clock.

Injection fails open with it (750 ms, DEC-9): the turn continues without memory and the
caller discloses the skip.  Time comes from the injected clock so tests advance it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from persona_mind.clock import Clock

__all__ = ("with_deadline",)

T = TypeVar("T")


async def with_deadline(work: Callable[[], Awaitable[T]], clock: Clock, seconds: float) -> T | None:
    """Run ``work`` but give up (cancel it, return ``None``) after ``seconds`` of ``clock``.

    Injection fails open with this (750 ms, DEC-9): the turn continues without memory and
    the caller discloses the skip.  Time comes from the injected clock so tests can advance
    it; a purely synchronous stretch of ``work`` cannot be pre-empted, only its awaits.
    """
    # Inline in the caller's task under a timeout scope the clock's timer expires — not a
    # task for the work plus a task for the timer joined by ``asyncio.wait``: a turn is a
    # handful of loop iterations instead of a dozen (issue 10, ``before_agent_start``).
    loop = asyncio.get_running_loop()
    fired = False
    try:
        async with asyncio.timeout(None) as scope:

            def expire() -> None:
                nonlocal fired
                fired = True
                scope.reschedule(loop.time())

            handle = clock.call_later(seconds, expire)
            try:
                return await work()
            finally:
                handle.cancel()
    except TimeoutError:
        if not fired:
            raise  # the work's own TimeoutError, not our deadline
        return None
