"""The RoundtableDesk actor: admits one round-table at a time and keeps its progress.

"One round-table at a time" is this actor's state (``running``), read and changed only by
its handlers: a second ``StartRoundtable`` while one runs is refused by the handler
(``RoundtableBusy``), progress snapshots arrive as messages from the run's coordinator, and
the run's end comes back as the desk's own bookkeeping (``RoundtableEnded``) — so
``/persona-roundtable status`` is answered from the mailbox, never from a flag a deferred
task flips. Each run is a :class:`~persona_mind.actors.roundtable.RoundtableCoordinator`
(spawned by ``run_roundtable``) started as the desk's background work, so a newer
generation cancels it like every other piece of work admitted under an older one.

Restart contract (docs/actors.md): a crash cancels and awaits the running round-table (its
children stop) and fails its asker with ``ActorStopped``; the last progress snapshot is
lost; the run counter is kept (checkpointed: each run's coordinator is named after it), and
the restarted desk admits a new run. ``WatchRoundtable`` long-polls the progress (the
lead's ``persona_roundtable`` tool streams it to Pi that way); watchers waiting when the
desk stops are failed by the kernel like every other promise.

A run started with a display (``StartRoundtable.on_progress``) gets a second piece of the
desk's work beside it: a relay that long-polls the desk the same way and awaits the
display with each new snapshot while the run lasts. It is the desk's work, so it ends with
the run, a newer generation or the desk's stop, and no task outlives its owner.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, assert_never

from persona_mind.actors import Actor, ActorRef, Cancelled, Deferred, Failed, Ok
from persona_mind.child_errors import ChildCancelled, RoundtableBusy
from persona_mind.messages.roundtable_desk import (
    CancelRun,
    DeskMsg,
    DeskProgress,
    DeskStatus,
    RoundtableEnded,
    RoundtableStatus,
    StartRoundtable,
    WatchedProgress,
    WatchRoundtable,
)

if TYPE_CHECKING:
    from persona_mind.messages.roundtable_progress import RoundtableProgress

__all__ = ("RoundtableDesk",)

_log = logging.getLogger("persona_mind.roundtable")


class RoundtableDesk(Actor[DeskMsg]):
    """See the module doc; ``runner`` returns the ChildRunner (spawned at first use)."""

    def __init__(self, runner: Callable[[], ActorRef[Any] | None]) -> None:
        self.runner = runner
        self.running: tuple[str, Deferred] | None = None
        self.progress: RoundtableProgress | None = None
        self.refused_busy = 0
        self.version = 0  # counts progress changes (snapshots and run ends)
        self.watchers: list[tuple[int, Deferred]] = []
        self._runs = itertools.count(1)
        self._watch_keys = itertools.count(1)

    async def on_start(self) -> None:
        # run numbers outlive a restart: each run spawns a coordinator named after it
        saved = self.recovered
        if isinstance(saved, int):
            self._runs = itertools.count(saved)

    async def on_stop(self) -> None:
        # Watchers still waiting get the last state rather than ActorStopped: a display
        # that already left (its ask was gone before the watch was handled) has no one to
        # read an error, and a present one learns the desk has no more news.
        watchers, self.watchers = self.watchers, []
        for _after, answer in watchers:
            answer.resolve(self._watched())

    async def receive(self, message: DeskMsg) -> object:
        match message:
            case StartRoundtable():
                return self._start(message)
            case RoundtableStatus():
                return DeskStatus(running=self.running is not None, progress=self.progress)
            case WatchRoundtable(after=after):
                return self._watch(after)
            case DeskProgress(progress=progress):
                if self.running is not None:
                    self.progress = progress
                    self._changed()
            case CancelRun(reason=reason):
                if self.running is not None:
                    self.cancel_work(self.running[0], reason)
            case RoundtableEnded(outcome=outcome):
                self._ended(outcome)
            case _:
                assert_never(message)
        return None

    def _start(self, message: StartRoundtable) -> Deferred:
        from persona_mind.actors.roundtable import run_roundtable  # noqa: PLC0415 - first use

        if self.running is not None:
            self.refused_busy += 1
            raise RoundtableBusy("a round-table is already running; see /persona-roundtable status")
        runner = self.runner()
        if runner is None:
            raise ChildCancelled("roundtable", "children are off in this runtime")
        number = next(self._runs)
        self.checkpoint(number + 1)
        key = f"rt{number}"
        ref = self.ref

        def abandoned() -> None:
            ref.tell_if_alive(CancelRun())

        answer = self.promise(key, on_abandoned=abandoned)
        self.running, self.progress = (key, answer), None
        self._changed()  # watchers of the previous run see that a new one started

        def on_progress(progress: RoundtableProgress) -> None:
            ref.tell_if_alive(DeskProgress(progress=progress))

        system = self.system

        async def run() -> object:
            return await run_roundtable(
                system,
                runner,
                message.team,
                message.query,
                message.model,
                on_progress=on_progress,
                injection=message.injection,
                cwd=message.cwd,
                run_id=f"{self.name}-{key}",
                selection=message.selection,
            )

        self.start_work(key, run, lambda outcome: RoundtableEnded(outcome=outcome))
        if message.on_progress is not None:
            self.start_work(f"{key}-display", self._relay(message.on_progress, self.version))
        return answer

    def _relay(
        self, display: Callable[[RoundtableProgress], Awaitable[None]], after: int
    ) -> Callable[[], Awaitable[None]]:
        """The run's live display: each new snapshot, until the run ends (see module)."""
        ref = self.ref

        async def relay() -> None:
            seen = after
            while True:
                news = await ref.ask(WatchRoundtable(after=seen), timeout=math.inf)
                if news is None or not news.running:
                    return
                seen = news.version
                if news.progress is not None:
                    try:
                        await display(news.progress)
                    except Exception:  # a display that failed never stops the run
                        _log.exception("round-table display failed")

        return relay

    def _watched(self) -> WatchedProgress:
        return WatchedProgress(
            version=self.version, running=self.running is not None, progress=self.progress
        )

    def _watch(self, after: int) -> WatchedProgress | Deferred:
        if self.version > after:
            return self._watched()

        def gone() -> None:
            # The watcher left (its display closed): settle the promise now, so it is not
            # failed with nobody listening when the desk stops; _changed skips it later.
            answer.resolve(None)

        answer = self.promise(f"watch-{next(self._watch_keys)}", on_abandoned=gone)
        self.watchers.append((after, answer))
        return answer

    def _changed(self) -> None:
        """A new snapshot or a run's end: answer every watcher (each waits for one change)."""
        self.version += 1
        watchers, self.watchers = self.watchers, []
        news = self._watched()
        for _after, answer in watchers:
            answer.resolve(news)

    def _ended(self, outcome: object) -> None:
        if self.running is None:
            return
        _, answer = self.running
        self.running = None
        self._changed()
        match outcome:
            case Ok(value=value):
                answer.resolve(value)
            case Failed(error=error):
                answer.reject(error)
            case Cancelled(reason=reason):
                answer.reject(ChildCancelled("roundtable", reason))
            case _:
                answer.reject(RuntimeError(f"unexpected outcome {outcome!r}"))
