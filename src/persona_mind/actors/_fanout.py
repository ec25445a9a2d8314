"""Fan-out / fan-in with a deadline: all legs succeed, or nothing is returned.

A round-table phase asks N personas at once. If one fails (or the deadline passes), the
others are cancelled at once and the caller gets ``FanOutFailed`` — never a partial set
of answers that could be mistaken for a complete phase. The deadline reads the injected
clock, so tests drive it with a ManualClock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from persona_mind.clock import Clock, MonotonicClock
from persona_mind.errors import FanOutFailed

__all__ = ("fan_out",)

T = TypeVar("T")

DEADLINE_LEG = "<deadline>"


async def fan_out(
    legs: Mapping[str, Callable[[], Awaitable[T]]],
    *,
    timeout: float,
    clock: Clock | None = None,
) -> dict[str, T]:
    """Run every leg concurrently; return ``{name: result}`` in the legs' order.

    Raises ``FanOutFailed`` naming the first failed leg (or ``<deadline>``) after
    cancelling and awaiting every unfinished sibling. Cancelling the caller cancels all
    legs too.
    """
    clock = clock or MonotonicClock()
    loop = asyncio.get_running_loop()
    tasks: dict[asyncio.Future[Any], str] = {}
    for name, leg in legs.items():
        tasks[asyncio.ensure_future(leg())] = name
    deadline: asyncio.Future[None] = loop.create_future()

    def expire() -> None:
        if not deadline.done():
            deadline.set_result(None)

    handle = clock.call_later(timeout, expire)
    failure: tuple[str, BaseException] | None = None
    pending: set[asyncio.Future[Any]] = set(tasks)
    try:
        while pending and failure is None:
            done, rest = await asyncio.wait(
                pending | {deadline}, return_when=asyncio.FIRST_COMPLETED
            )
            rest.discard(deadline)
            pending = rest
            for fut in done:
                if fut is deadline:
                    failure = (
                        DEADLINE_LEG,
                        TimeoutError(f"the fan-out passed its {timeout:g}s deadline"),
                    )
                elif fut.cancelled():
                    failure = (
                        tasks[fut],
                        asyncio.CancelledError(f"leg {tasks[fut]!r} was cancelled"),
                    )
                elif fut.exception() is not None:
                    failure = failure or (tasks[fut], fut.exception())  # type: ignore[assignment]
    finally:
        handle.cancel()
        for fut in pending:
            fut.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        if not deadline.done():
            deadline.cancel()
    if failure is not None:
        raise FanOutFailed(*failure)
    return {name: fut.result() for fut, name in tasks.items()}
