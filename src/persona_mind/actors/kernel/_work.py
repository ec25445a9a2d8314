"""Background work of an actor: its outcomes, and the task group that owns it.

An actor must not block its mailbox on long work (a child process, a model call). It
starts the work with ``Actor.start_work`` and gets the outcome back *as a message*, so
cancellation and completion are ordered with everything else it receives.

Every piece of work runs as a child of one task group per actor incarnation
(:class:`WorkGroup`, opened by the cell around the incarnation): the incarnation cannot
end while a child lives, so a stop, crash or restart awaits its work structurally — not
by bookkeeping that could miss a task.

The group is an anyio task group, as ARCHITECTURE asks ("anyio task groups and cancel
scopes own every task"). Work runs off a turn's path (consults, round-tables, reviews:
seconds each), so an anyio ``start_soon`` (~20–40 µs more than a bare task per piece of
work, ``bench/work.py``) is negligible there; the mailbox stays the measured asyncio fast
path (docs/actors.md, "Concurrency").

Cancelling one piece of work (``cancel_work``, a newer generation, the end of the
incarnation) is a single asyncio cancellation of its task, not an anyio cancel scope, and
that is a decision: a cancelled anyio scope re-delivers ``CancelledError`` at *every*
await inside it (level-triggered), while the work the actors run is written for asyncio's
one-shot cancellation — ``run_child`` answers a cancellation by asking the ChildRunner to
stop the child and *awaiting* that, and a cancelled child's cleanup awaits its process
group. Under a cancelled scope those awaits would be cut at once and a child could outlive
its phase. So the kernel cancels once and the cleanup runs; only a piece of work still
alive after ``STOP_GRACE`` has its own cancel scope cancelled (level-triggered: every
await it makes fails), with a warning, and the incarnation waits for it to end — it
never leaks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Generic, TypeVar

import anyio
import msgspec

from persona_mind.errors import ActorError, ActorStopped, StaleGeneration

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

T = TypeVar("T")

__all__ = ("STOP_GRACE", "Cancelled", "Failed", "Ok", "Outcome", "WorkGroup")

_log = logging.getLogger("persona_mind.actors")

STOP_GRACE = 5.0
"""Seconds a graceful stop lets the current handler (and then cancelled work, or a
fan-out's cancelled legs) finish.

A kernel safety bound on real time, not a domain timer: it only matters when a handler or
a piece of work ignores a cancellation, and a test that needs it shorter stops with
``force=True`` or patches this value."""


# Structs, not dataclasses: a frozen slotted dataclass costs ~0.5 ms of CPU to define (its
# methods are generated as source and compiled), a Struct ~15 us; these are defined on the
# sidecar's path to ``ready`` (issue 24: start-to-ready). They are never encoded.
class Ok(msgspec.Struct, Generic[T], frozen=True):
    """The work returned ``value``."""

    key: str
    value: T


class Failed(msgspec.Struct, frozen=True):
    """The work raised ``error``."""

    key: str
    error: Exception


class Cancelled(msgspec.Struct, frozen=True):
    """The work was cancelled (by ``cancel_work``, a stop or a restart)."""

    key: str
    reason: str


Outcome = Ok[T] | Failed | Cancelled


class Work(msgspec.Struct, eq=False):
    """One running piece of work: its task (once started), generation and cancellation."""

    key: str
    generation: int | None
    task: asyncio.Task[None] | None = None
    scope: anyio.CancelScope | None = None
    """Its own scope, cancelled only when it outlives the grace at the end (``end``)."""
    reason: str | None = None
    """Why it was cancelled; set by the first cancel only (a second never interrupts)."""
    stale: StaleGeneration | None = None
    """Set when a newer generation cancelled it: what a deferred asker receives."""


def _aborted(owner: str, key: str, exc: BaseException) -> ActorStopped:
    """What the asker of work that raised a ``BaseException`` receives: the actor crashes."""
    stopped = ActorStopped(owner, f"crashed: work {key!r} raised {type(exc).__name__}: {exc}")
    stopped.__cause__ = exc
    return stopped


class WorkGroup:
    """The work of one actor incarnation, children of one anyio task group."""

    def __init__(self, owner: str, group: TaskGroup) -> None:
        self.owner = owner
        self._group = group
        self.works: dict[str, Work] = {}
        self._idle: asyncio.Event | None = None

    def start(
        self,
        key: str,
        generation: int | None,
        work: Callable[[], Awaitable[T]],
        settle: Callable[[Work, Outcome[T]], None],
        kind: str,
    ) -> None:
        """Run ``work`` in the group; ``settle`` receives its outcome once it has ended."""
        if key in self.works:
            raise ActorError(
                f"{self.owner!r} already runs work {key!r}; cancel it or pick a new key"
            )
        record = Work(key, generation)
        self.works[key] = record

        async def run() -> None:
            record.task = asyncio.current_task()
            outcome: Outcome[T] | None = None
            try:
                with anyio.CancelScope() as scope:  # cancelled only past the grace (end)
                    record.scope = scope
                    if record.reason is None:  # else: cancelled before it ever ran
                        outcome = Ok(key, await work())
                if outcome is None:
                    outcome = Cancelled(key, record.reason or "cancelled")
            except asyncio.CancelledError:
                outcome = Cancelled(key, record.reason or "cancelled")
            except Exception as exc:
                outcome = Failed(key, exc)
            except BaseException as exc:  # aborts the group (a crash): answer first
                self._forget(record)
                self._settle(settle, record, Failed(key, _aborted(self.owner, key, exc)))
                raise
            finally:
                self._forget(record)
            self._settle(settle, record, outcome)

        self._group.start_soon(run, name=f"{kind}:{self.owner}:{key}")

    def _settle(
        self, settle: Callable[[Work, Outcome[T]], None], record: Work, outcome: Outcome[T]
    ) -> None:
        """Hand the outcome over; a bug there (an ``on_done`` that raises, or returns a
        message outside the actor's protocol) is logged, never raised into the group —
        where it would cancel the actor's loop and every sibling."""
        try:
            settle(record, outcome)
        except Exception:
            _log.exception("%s: handing over the outcome of work %r failed", self.owner, record.key)

    def _forget(self, record: Work) -> None:
        if self.works.get(record.key) is record:
            del self.works[record.key]
        if not self.works and self._idle is not None:
            self._idle.set()

    def cancel(self, key: str, reason: str) -> bool:
        """Cancel once; ``False`` if no work runs under ``key``."""
        record = self.works.get(key)
        if record is None:
            return False
        if record.reason is None:
            record.reason = reason
            if record.task is not None:  # else: run() sees the reason at its first step
                record.task.cancel()
        return True

    def cancel_stale(self, owner: str, generation: int) -> None:
        """Cancel the work admitted under a generation older than ``generation``."""
        for record in list(self.works.values()):
            admitted = record.generation
            if admitted is not None and admitted < generation:
                record.stale = record.stale or StaleGeneration(owner, admitted, generation)
                self.cancel(record.key, f"stale generation (now {generation})")

    async def end(self, reason: str, grace: float) -> None:
        """Cancel every piece of work once and wait until it has ended.

        What still runs after ``grace`` seconds ignored the cancellation: its own cancel
        scope is cancelled (every await it makes fails from then on) and the wait goes on —
        the incarnation never outlives its work.
        """
        for key in list(self.works):
            self.cancel(key, reason)
        if not self.works:
            return
        self._idle = asyncio.Event()
        try:
            async with asyncio.timeout(grace):
                await self._idle.wait()
        except TimeoutError:
            _log.warning(
                "%s: work %s ignored cancellation for %gs; cancelling its scope",
                self.owner,
                ", ".join(sorted(self.works)),
                grace,
            )
            for record in list(self.works.values()):
                if record.scope is not None:
                    record.scope.cancel()
            if self.works:
                await self._idle.wait()
