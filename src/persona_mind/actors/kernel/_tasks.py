"""The system's task group: the parent of every actor loop and every escalation.

ARCHITECTURE asks that anyio task groups own every task. An actor's loop and a
supervisor's escalation outlive the call that starts them (``spawn`` is synchronous, a
crash decides a restart in the crashed actor's own task), so they cannot be children of a
group their starter enters; and an :class:`ActorSystem` may be entered in one task and left
in another (an async fixture's set-up and tear-down, a runtime opened by one task and
closed by another) while an anyio group must be left by the task that entered it. So the
group lives in a task of its own — the one task the kernel creates directly, as anyio's own
blocking portal hosts its group — opened when the system is entered and closed, after
every actor stopped, when it is left. Nothing the kernel starts is unowned: a loop or an
escalation still running at the close is cancelled by the group and awaited.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import anyio

from persona_mind.errors import ActorError

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

__all__ = ("TaskTree",)

_log = logging.getLogger("persona_mind.actors")


class TaskTree:
    """One anyio task group, hosted by one task, for a system's loops and escalations."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._group: TaskGroup | None = None
        self._host: asyncio.Task[None] | None = None
        self._close: asyncio.Event | None = None
        self.closed = False

    async def open(self) -> None:
        """Start the hosting task and wait until its group accepts children."""
        if self._host is not None:
            return
        loop = asyncio.get_running_loop()
        opened: asyncio.Future[None] = loop.create_future()
        self._close = asyncio.Event()
        self._host = loop.create_task(self._hold(opened), name=f"tasks:{self.name}")
        await asyncio.wait({opened, self._host}, return_when=asyncio.FIRST_COMPLETED)
        if not opened.done():  # the host failed before opening its group
            await self._host

    async def _hold(self, opened: asyncio.Future[None]) -> None:
        assert self._close is not None
        try:
            async with anyio.create_task_group() as group:
                self._group = group
                opened.set_result(None)
                await self._close.wait()
                group.cancel_scope.cancel()  # what outlived the system's stop (see close)
        finally:
            self._group = None
            self.closed = True

    def start_soon(self, fn: Callable[[], Coroutine[Any, Any, None]], name: str) -> None:
        """Start ``fn()`` as a child of the group (synchronous; it runs from the next step)."""
        group = self._group
        if group is None:
            raise ActorError(
                f"the actor system {self.name!r} is not running; "
                "enter it with `async with ActorSystem(...)` before spawning actors"
            )
        group.start_soon(fn, name=name)

    async def close(self) -> None:
        """Close the group: a child still running is cancelled, and awaited.

        The system stops every actor and settles every escalation first, so normally the
        group is empty here and closing it only ends the hosting task."""
        host, self._host = self._host, None
        if host is None or self._close is None:
            return
        self._close.set()
        if host is asyncio.current_task():
            return
        done, _ = await asyncio.wait({host})
        for task in done:
            if not task.cancelled() and (error := task.exception()) is not None:
                _log.error("the actor task group of %r ended with %r", self.name, error)
