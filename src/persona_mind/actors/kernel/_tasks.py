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
escalation still running ``STOP_GRACE`` after the close is cancelled by the group, and
awaited.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import anyio

from persona_mind.actors.kernel import _work
from persona_mind.errors import ActorError

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

__all__ = ("TaskTree",)

_log = logging.getLogger("persona_mind.actors")

_inside: contextvars.ContextVar[TaskTree | None] = contextvars.ContextVar(
    "persona_mind_task_tree", default=None
)


class TaskTree:
    """One anyio task group, hosted by one task, for a system's loops and escalations."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._group: TaskGroup | None = None
        self._host: asyncio.Task[None] | None = None
        self._close: asyncio.Event | None = None
        self._children: set[asyncio.Future[None]] = set()
        self._pending: list[tuple[Callable[[], Coroutine[Any, Any, None]], str]] = []
        self.closed = False

    def open(self) -> None:
        """Start the hosting task (synchronous: entering the system never yields, so a
        runtime that starts without awaiting anything else stays as quick as it was).

        Children started before the host took its first step wait in ``_pending`` and are
        started, in order, as soon as its group is open."""
        if self._host is not None:
            return
        self._close = asyncio.Event()
        self._host = asyncio.get_running_loop().create_task(self._hold(), name=f"tasks:{self.name}")

    async def _hold(self) -> None:
        assert self._close is not None
        try:
            async with anyio.create_task_group() as group:
                self._group = group
                pending, self._pending = self._pending, []
                for fn, name in pending:
                    group.start_soon(fn, name=name)
                await self._close.wait()
                alive = {f for f in self._children if not f.done()}
                if alive:  # normally none: the system stopped every actor first
                    _, alive = await asyncio.wait(alive, timeout=_work.STOP_GRACE)
                if alive:
                    _log.warning(
                        "%d actor task(s) of %r outlived the system's stop; cancelling",
                        len(alive),
                        self.name,
                    )
                    group.cancel_scope.cancel()
        finally:
            self._group = None
            self.closed = True

    def start_soon(
        self, fn: Callable[[], Coroutine[Any, Any, None]], name: str, done: asyncio.Future[None]
    ) -> None:
        """Start ``fn()`` as a child of the group (synchronous; it runs from the next step).

        ``done`` is set by the child when it ends (a cell's, an escalation's): the group's
        close waits on those, never wrapping the child in a frame of its own (an actor's
        loop resumes through every frame around it at every message)."""
        if self._host is None or self._close is None or self._close.is_set() or self.closed:
            raise ActorError(
                f"the actor system {self.name!r} is not running; "
                "enter it with `async with ActorSystem(...)` before spawning actors"
            )
        self._children = {f for f in self._children if not f.done()}
        self._children.add(done)
        if self._group is None:
            self._pending.append((fn, name))  # the host has not opened its group yet
        else:
            self._group.start_soon(fn, name=name)

    def enter(self) -> None:
        """Called by a child at its first step: marks its task as one of the group's."""
        _inside.set(self)

    def _children_include_current(self) -> bool:
        return _inside.get() is self

    async def close(self) -> None:
        """Close the group: a child still running is cancelled, and awaited.

        The system stops every actor and settles every escalation first, so normally the
        group is empty here and closing it only ends the hosting task."""
        host, self._host = self._host, None
        if host is None or self._close is None:
            return
        self._close.set()
        if host is asyncio.current_task() or self._children_include_current():
            return  # stopped from inside (an actor's own task): the group ends when it does
        done, _ = await asyncio.wait({host})
        for task in done:
            if not task.cancelled() and (error := task.exception()) is not None:
                _log.error("the actor task group of %r ended with %r", self.name, error)
