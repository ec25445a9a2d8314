"""The ChildRunner actor: owns every one-shot child process of the runtime.

Each child runs as cancellable background work (``start_work``), so the mailbox stays free
for progress, cancels and status queries while children run. The backend enforces the
child's deadline and stop ladder; the runner adds a watchdog (deadline + ladder + margin,
a timer *message* on the injected clock) in case a backend does not. Every child event —
admitted, spawned (pid), exited (return code, ladder rungs used), finished/failed/
cancelled — is traced with ``system.trace_child``. Nothing is retried after launch
(P-CHILD-8). On stop the runner waits (bounded) until its children's processes are gone.

What children cost is the runner's bookkeeping too, because every child — consult,
round-table child, review worker — passes through it: each assistant message's usage is
counted as the child reports it (a ``usage`` progress event, also traced), and a finished
child's reply replaces those running figures with its own total. ``ChildTotals`` answers
per owner generation, persona and kind (``/persona status`` sums a session's).

Generations are the kernel's: a ``RunChild`` stamped with a stale generation is dropped
before it is admitted, and a newer generation cancels every child admitted under an older
one (the kernel cancels the child's work; its outcome still arrives here as bookkeeping,
so the entry is cleaned up and the asker gets ``StaleGeneration``).

Restart contract (docs/actors.md): a crash cancels and awaits every child's work, so no
process outlives the incarnation that started it; every pending ``RunChild`` ask fails
(``ActorStopped``) and nothing is retried. The finished children's costs are kept
(checkpointed after each child); what the cancelled ones had reported is lost.

The runtime spawns it at start; the child-process layer (``runners._child_process``) is
imported only when children have to be waited for, so start-up never loads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
from typing import TYPE_CHECKING, Any, assert_never

import msgspec

from persona_mind.actors import Actor, ActorRef, Cancelled, Deferred, Failed, Ok
from persona_mind.child_errors import ChildCancelled, ChildDeadlineExceeded
from persona_mind.clock import TimerHandle
from persona_mind.errors import ActorError, ChildError, StaleGeneration
from persona_mind.messages.child import (
    ChildProgress,
    ChildReply,
    ChildRequest,
    ChildSpend,
    ChildUsage,
)
from persona_mind.messages.runner import (
    CancelChild,
    ChildActivity,
    ChildOverdue,
    ChildStatus,
    ChildTotals,
    ChildWorkDone,
    ListChildren,
    RunChild,
    RunnerMessage,
)

if TYPE_CHECKING:
    from persona_mind.messages._base import Recipient
    from persona_mind.runners._child_backend import ChildBackend

__all__ = ("ChildRunner", "run_child")


class _Running(msgspec.Struct):
    request: ChildRequest
    answer: Deferred
    progress_to: Recipient | None
    started: float
    generation: int
    watchdog: TimerHandle | None = None
    pid: int | None = None
    cancel_reason: str | None = None
    usage: ChildUsage = msgspec.field(default_factory=ChildUsage)
    """What the child reported so far (summed over its assistant messages)."""
    gone: asyncio.Event = msgspec.field(default_factory=asyncio.Event)


class ChildRunner(Actor[RunnerMessage]):
    """Runs children on one backend; one entry per running request id."""

    def __init__(
        self, backend: ChildBackend, *, overdue_margin: float = 15.0, stop_wait: float = 15.0
    ) -> None:
        self.backend = backend
        self.overdue_margin = overdue_margin
        self.stop_wait = stop_wait
        self.running: dict[str, _Running] = {}
        self.launched = 0
        self.spent: dict[tuple[int, str, str], ChildSpend] = {}
        """Finished children's cost per (generation, persona, kind)."""
        self._cancels = itertools.count(1)

    async def on_start(self) -> None:
        saved = self.recovered  # the finished children's costs outlive a restart
        if isinstance(saved, tuple):
            self.spent = {(r.generation, r.persona, r.kind): r for r in saved}

    async def receive(self, message: RunnerMessage) -> object:
        match message:
            case RunChild():
                return self._admit(message)
            case CancelChild(request_id=rid, reason=reason):
                return self._cancel(rid, reason)
            case ListChildren():
                return tuple(
                    ChildStatus(
                        request_id=rid,
                        persona=e.request.persona.name,
                        kind=e.request.kind,
                        pid=e.pid,
                        started=e.started,
                        usage=e.usage,
                    )
                    for rid, e in self.running.items()
                )
            case ChildTotals(since=since):
                return self._totals(since)
            case ChildActivity(progress=progress):
                self._activity(progress)
            case ChildWorkDone(request_id=rid, outcome=outcome):
                self._finish(rid, outcome)
            case ChildOverdue(request_id=rid):
                entry = self.running.get(rid)
                if entry is not None:
                    entry.cancel_reason = "overdue"
                    self._trace("overdue", entry.request)
                    self.cancel_work(rid, "overdue")
            case _:
                assert_never(message)
        return None

    def _cancel(self, rid: str, reason: str) -> Deferred | bool:
        """Cancel child ``rid``; answered once its process is gone."""
        entry = self.running.get(rid)
        if entry is None:
            return False
        if entry.cancel_reason is None:  # a second cancel only waits for the first
            entry.cancel_reason = reason
            self._trace("cancel", entry.request, reason=reason)
            self.cancel_work(rid, reason)
        gone = entry.gone

        async def wait_gone() -> bool:
            await gone.wait()
            return True

        return self.defer(f"cancel-{rid}-{next(self._cancels)}", wait_gone)

    def _admit(self, message: RunChild) -> Deferred:
        request = message.request
        rid = request.request_id
        if rid in self.running:
            raise ChildError(f"child {rid!r} is already running; use a new request id")
        ref = self.ref

        def abandoned() -> None:
            ref.tell_if_alive(CancelChild(request_id=rid, reason="the caller was cancelled"))

        answer = self.promise(rid, on_abandoned=abandoned)
        entry = _Running(
            request, answer, message.progress_to, self.clock.monotonic(), self.admitted
        )
        self.running[rid] = entry
        self.launched += 1

        def progress(p: ChildProgress) -> None:
            # Process events are traced at once (also while the runner is stopping and its
            # mailbox is closed); everything else is ordered through the mailbox.
            if p.event == "spawned":
                self._trace("spawned", request, pid=p.pid, argv0=p.detail)
            elif p.event == "exited":
                self._trace("exited", request, pid=p.pid, detail=p.detail)
            ref.tell_if_alive(ChildActivity(progress=p))

        async def work() -> ChildReply:
            try:
                return await self.backend.run(request, progress)
            finally:
                entry.gone.set()

        self._trace("admitted", request, backend=self.backend.name, model=request.model)
        self.start_work(rid, work, lambda outcome: ChildWorkDone(request_id=rid, outcome=outcome))
        if math.isfinite(request.deadline):
            entry.watchdog = self.clock.send_after(
                request.deadline + self.overdue_margin, self.ref, ChildOverdue(request_id=rid)
            )
        return answer

    def _activity(self, progress: ChildProgress) -> None:
        entry = self.running.get(progress.request_id)
        if entry is None:
            return
        if progress.event == "spawned":
            entry.pid = progress.pid
        if progress.event == "usage" and progress.usage is not None:
            entry.usage = entry.usage + progress.usage
            self._trace("usage", entry.request, tokens=progress.usage.total_tokens)
        if entry.progress_to is not None:
            entry.progress_to.tell_if_alive(ChildActivity(progress=progress))

    def _finish(self, rid: str, outcome: object) -> None:
        entry = self.running.pop(rid, None)
        if entry is None:
            return
        if entry.watchdog is not None:
            entry.watchdog.cancel()
        request = entry.request
        error: Exception
        match outcome:
            case Ok(value=reply):
                self._spend(entry, reply.usage)
                self._trace(
                    "finished",
                    request,
                    duration=round(reply.duration, 6),
                    tokens=reply.usage.total_tokens,
                )
                entry.answer.resolve(reply)
                return
            case Failed(error=exc):
                error = exc
            case Cancelled(reason=reason) if reason == "overdue":
                error = ChildDeadlineExceeded(request.label, request.deadline)
            case Cancelled(reason=reason) if reason.startswith("stale generation"):
                error = StaleGeneration(self.name, entry.generation, self.system.generation)
            case Cancelled(reason=reason):
                error = ChildCancelled(request.label, reason)
            case _:
                raise AssertionError(f"unexpected outcome {outcome!r}")
        self._spend(entry, entry.usage)  # what a failed child reported was spent
        self._trace("failed", request, error=type(error).__name__)
        entry.answer.reject(error)

    def _spend(self, entry: _Running, usage: ChildUsage) -> None:
        """Count one ended child; the checkpoint keeps the costs across a restart."""
        key = (entry.generation, entry.request.persona.name, entry.request.kind)
        row = self.spent.get(key) or ChildSpend(
            generation=key[0], persona=key[1], kind=entry.request.kind
        )
        self.spent[key] = ChildSpend(
            generation=row.generation,
            persona=row.persona,
            kind=row.kind,
            children=row.children + 1,
            usage=row.usage + usage,
        )
        self.checkpoint(tuple(self.spent.values()))

    def _totals(self, since: int) -> tuple[ChildSpend, ...]:
        """Finished children's rows and each running child's reported usage so far."""
        rows = [r for r in self.spent.values() if r.generation >= since]
        rows += [
            ChildSpend(
                generation=e.generation,
                persona=e.request.persona.name,
                kind=e.request.kind,
                children=1,
                usage=e.usage,
            )
            for e in self.running.values()
            if e.generation >= since
        ]
        return tuple(rows)

    def _trace(self, phase: str, request: ChildRequest, **detail: object) -> None:
        self.system.trace_child(
            self.name,
            phase,
            request_id=request.request_id,
            persona=request.persona.name,
            kind=request.kind,
            **detail,
        )

    async def on_stop(self) -> None:
        """Work was cancelled by the kernel; wait (bounded) until the processes are gone."""
        entries = list(self.running.values())
        self.running.clear()

        async def all_gone() -> None:
            for entry in entries:
                await entry.gone.wait()

        if entries:
            from persona_mind.runners._child_process import within  # noqa: PLC0415

            await within(self.clock, self.stop_wait, all_gone)
        for entry in entries:
            if entry.watchdog is not None:
                entry.watchdog.cancel()
            entry.answer.reject(ChildCancelled(entry.request.label, "the child runner stopped"))


async def run_child(
    runner: ActorRef[Any],
    request: ChildRequest,
    *,
    progress_to: ActorRef[Any] | None = None,
    cancel_wait: float = 15.0,
    generation: int | None = None,
) -> ChildReply:
    """Run one child through ``runner`` and wait for its answer.

    Cancelling the caller tells the runner to stop the child and then waits (bounded by
    ``cancel_wait`` real seconds) until the runner reports it gone, so a cancelled phase
    never outlives its processes. ``generation`` overrides the generation the kernel
    stamps (work admitted earlier by an adapter); a newer generation cancels the child.
    """
    try:
        return await runner.ask(  # bounded by the child's deadline and the watchdog
            RunChild(request=request, progress_to=progress_to),
            timeout=math.inf,
            generation=generation,
        )
    except asyncio.CancelledError:
        with contextlib.suppress(ActorError, TimeoutError):
            await asyncio.wait_for(
                asyncio.shield(
                    runner.ask(
                        CancelChild(
                            request_id=request.request_id, reason="the caller was cancelled"
                        )
                    )
                ),
                cancel_wait,
            )
        raise
