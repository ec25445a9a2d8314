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
the restarted desk admits a new run.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, assert_never

from persona_mind.actors import Actor, ActorRef, Cancelled, Deferred, Failed, Ok
from persona_mind.messages.roundtable_desk import (
    CancelRun,
    DeskMsg,
    DeskProgress,
    DeskStatus,
    RoundtableEnded,
    RoundtableStatus,
    StartRoundtable,
)
from persona_mind.runners._child_errors import ChildCancelled, RoundtableBusy

if TYPE_CHECKING:
    from persona_mind.runners._roundtable_progress import RoundtableProgress

__all__ = ("RoundtableDesk",)


class RoundtableDesk(Actor[DeskMsg]):
    """See the module doc; ``runner`` returns the ChildRunner (spawned at first use)."""

    def __init__(self, runner: Callable[[], ActorRef[Any] | None]) -> None:
        self.runner = runner
        self.running: tuple[str, Deferred] | None = None
        self.progress: RoundtableProgress | None = None
        self.refused_busy = 0
        self._runs = itertools.count(1)

    async def on_start(self) -> None:
        # run numbers outlive a restart: each run spawns a coordinator named after it
        saved = self.recovered
        if isinstance(saved, int):
            self._runs = itertools.count(saved)

    async def receive(self, message: DeskMsg) -> object:
        match message:
            case StartRoundtable():
                return self._start(message)
            case RoundtableStatus():
                return DeskStatus(running=self.running is not None, progress=self.progress)
            case DeskProgress(progress=progress):
                if self.running is not None:
                    self.progress = progress
            case CancelRun(reason=reason):
                if self.running is not None:
                    self.cancel_work(self.running[0], reason)
            case RoundtableEnded(outcome=outcome):
                self._ended(outcome)
            case _:
                assert_never(message)
        return None

    def _start(self, message: StartRoundtable) -> Deferred:
        from persona_mind.runners.child import run_roundtable  # noqa: PLC0415 - children

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
            )

        self.start_work(key, run, lambda outcome: RoundtableEnded(outcome=outcome))
        return answer

    def _ended(self, outcome: object) -> None:
        if self.running is None:
            return
        _, answer = self.running
        self.running = None
        match outcome:
            case Ok(value=value):
                answer.resolve(value)
            case Failed(error=error):
                answer.reject(error)
            case Cancelled(reason=reason):
                answer.reject(ChildCancelled("roundtable", reason))
            case _:
                answer.reject(RuntimeError(f"unexpected outcome {outcome!r}"))
