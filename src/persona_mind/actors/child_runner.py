"""The ChildRunner actor: owns every one-shot child process of the runtime.

Each child runs as cancellable background work (``start_work``), so the mailbox stays free
for progress, cancels and status queries while children run. The backend enforces the
child's deadline and stop ladder; the runner adds a watchdog (deadline + ladder + margin,
a timer *message* on the injected clock) in case a backend does not. Every child event —
admitted, spawned (pid), exited (return code, ladder rungs used), finished/failed/
cancelled — is traced with ``system.trace_child``. Nothing is retried after launch
(P-CHILD-8). On stop the runner waits (bounded) until its children's processes are gone.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field
from typing import Any

from persona_mind.actors import Actor, ActorRef, Cancelled, Failed, Ok
from persona_mind.clock import TimerHandle
from persona_mind.errors import ChildError, StaleGeneration
from persona_mind.messages.runner import (
    CancelChild,
    ChildActivity,
    ChildDone,
    ChildOverdue,
    ChildStatus,
    ChildWorkDone,
    ListChildren,
    RunChild,
    RunnerGeneration,
    RunnerMessage,
)
from persona_mind.runners._child_errors import ChildCancelled, ChildDeadlineExceeded
from persona_mind.runners._child_process import within
from persona_mind.runners._child_types import (
    ChildBackend,
    ChildProgress,
    ChildReply,
    ChildRequest,
)

__all__ = ("ChildRunner", "run_child")


@dataclass
class _Running:
    request: ChildRequest
    future: asyncio.Future[ChildReply]
    reply_to: ActorRef[Any] | None
    progress_to: ActorRef[Any] | None
    started: float
    generation: int | None = None
    watchdog: TimerHandle | None = None
    pid: int | None = None
    cancel_reason: str | None = None
    gone: asyncio.Event = field(default_factory=asyncio.Event)


def _quiet(fut: asyncio.Future[ChildReply]) -> None:
    """Mark a failure as retrieved so an unawaited future logs nothing."""
    if not fut.cancelled():
        fut.exception()


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

    async def receive(self, message: RunnerMessage) -> object:
        match message:
            case RunChild():
                return self._admit(message)
            case CancelChild(request_id=rid, reason=reason):
                entry = self.running.get(rid)
                if entry is None:
                    return False
                entry.cancel_reason = reason
                self._trace("cancel", entry.request, reason=reason)
                return self.cancel_work(rid, reason)
            case ListChildren():
                return tuple(
                    ChildStatus(
                        request_id=rid,
                        persona=e.request.persona.name,
                        kind=e.request.kind,
                        pid=e.pid,
                        started=e.started,
                    )
                    for rid, e in self.running.items()
                )
            case ChildActivity(progress=progress):
                self._activity(progress)
                return None
            case ChildWorkDone(request_id=rid, outcome=outcome):
                self._finish(rid, outcome)
                return None
            case RunnerGeneration(generation=generation):
                return self._new_generation(generation)
            case ChildOverdue(request_id=rid):
                entry = self.running.get(rid)
                if entry is not None:
                    entry.cancel_reason = "overdue"
                    self._trace("overdue", entry.request)
                    self.cancel_work(rid, "overdue")
                return None

    def _new_generation(self, generation: int) -> int:
        """Adopt a newer Owner generation; cancel children admitted under an older one, so
        no late answer reaches a replaced session. Returns how many were cancelled."""
        if generation <= self.generation:
            return 0
        self.generation = generation
        stale = [
            rid
            for rid, e in self.running.items()
            if e.generation is not None and e.generation < generation
        ]
        for rid in stale:
            self._trace("stale", self.running[rid].request, generation=generation)
            self.cancel_work(rid, f"stale generation (now {generation})")
        return len(stale)

    def _admit(self, message: RunChild) -> asyncio.Future[ChildReply]:
        request = message.request
        rid = request.request_id
        if message.generation is not None and message.generation < self.generation:
            raise StaleGeneration(self.name, message.generation, self.generation)
        if rid in self.running:
            raise ChildError(f"child {rid!r} is already running; use a new request id")
        fut: asyncio.Future[ChildReply] = asyncio.get_running_loop().create_future()
        fut.add_done_callback(_quiet)
        entry = _Running(
            request,
            fut,
            message.reply_to,
            message.progress_to,
            self.clock.monotonic(),
            generation=message.generation,
        )
        self.running[rid] = entry
        self.launched += 1
        ref = self.ref

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
        return fut

    def _activity(self, progress: ChildProgress) -> None:
        entry = self.running.get(progress.request_id)
        if entry is None:
            return
        if progress.event == "spawned":
            entry.pid = progress.pid
        if entry.progress_to is not None:
            entry.progress_to.tell_if_alive(ChildActivity(progress=progress))

    def _finish(self, rid: str, outcome: object) -> None:
        entry = self.running.pop(rid, None)
        if entry is None:
            return
        if entry.watchdog is not None:
            entry.watchdog.cancel()
        request = entry.request
        reply: ChildReply | None = None
        error: Exception | None = None
        match outcome:
            case Ok(value=value):
                reply = value
            case Failed(error=exc):
                error = exc
            case Cancelled(reason=reason):
                error = (
                    ChildDeadlineExceeded(request.label, request.deadline)
                    if reason == "overdue"
                    else ChildCancelled(request.label, reason)
                )
        if reply is not None:
            self._trace("finished", request, duration=round(reply.duration, 6))
            entry.future.set_result(reply)
        else:
            assert error is not None
            self._trace("failed", request, error=type(error).__name__)
            entry.future.set_exception(error)
        if entry.reply_to is not None:
            entry.reply_to.tell_if_alive(ChildDone(request_id=rid, reply=reply, error=error))

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
            await within(self.clock, self.stop_wait, all_gone)
        for entry in entries:
            if entry.watchdog is not None:
                entry.watchdog.cancel()
            if not entry.future.done():
                entry.future.set_exception(
                    ChildCancelled(entry.request.label, "the child runner stopped")
                )


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
    never outlives its processes. ``generation`` binds the child to an Owner generation
    (see :class:`~persona_mind.messages.runner.RunnerGeneration`).
    """
    fut: asyncio.Future[ChildReply] = await runner.ask(
        RunChild(request=request, progress_to=progress_to, generation=generation)
    )
    try:
        return await asyncio.shield(fut)
    except asyncio.CancelledError:
        if not fut.done():
            runner.tell_if_alive(
                CancelChild(request_id=request.request_id, reason="the caller was cancelled")
            )
            await asyncio.wait({fut}, timeout=cancel_wait)
        raise
