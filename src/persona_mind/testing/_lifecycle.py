"""Wait on an actor's lifecycle (start, crash, restart, stop) instead of polling it.

A restart test must wait until the crashed incarnation has torn down and the new one
runs: messages sent during the teardown fail with the rest of the old incarnation's
mailbox. The kernel sets an event at each lifecycle step of an actor
(``Cell.lifecycle_changed``); :func:`wait_for_actor` re-checks its condition at each one,
with a real-time safety net so a broken test fails instead of hanging.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from persona_mind.actors import ActorRef, ActorStatistics

__all__ = ("restarted", "wait_for_actor")

SAFETY_NET = 10.0  # seconds of real time before a wait gives up


async def wait_for_actor(
    ref: ActorRef[Any],
    condition: Callable[[ActorStatistics], bool],
    *,
    safety_net: float = SAFETY_NET,
) -> ActorStatistics:
    """Return ``ref``'s statistics once ``condition`` holds for them.

    The condition is checked now and after each lifecycle step of the actor, never on a
    timer; raises ``TimeoutError`` after ``safety_net`` real seconds.
    """
    cell = ref._cell
    async with asyncio.timeout(safety_net):
        while not condition(stats := ref.statistics()):
            await cell.lifecycle_changed().wait()
    return stats


async def restarted(
    ref: ActorRef[Any], times: int = 1, *, safety_net: float = SAFETY_NET
) -> ActorStatistics:
    """Until ``ref`` restarted ``times`` times in all and its new incarnation runs."""
    return await wait_for_actor(
        ref,
        lambda s: s.restarts >= times and s.state == "running",
        safety_net=safety_net,
    )
