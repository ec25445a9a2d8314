"""``with_deadline``: run awaitable work against a deadline of the injected clock.

Injection fails open with it (750 ms, DEC-9): the turn continues without memory and the
caller discloses the skip.  Time comes from the injected clock so tests advance it.
"""

from __future__ import annotations

import asyncio
import contextlib
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
    task = asyncio.ensure_future(work())
    timer = asyncio.ensure_future(clock.sleep(seconds))
    try:
        done, _ = await asyncio.wait({task, timer}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()  # the caller was cancelled: never leave the work running orphaned
        raise
    finally:
        timer.cancel()
    if task in done:
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return None
