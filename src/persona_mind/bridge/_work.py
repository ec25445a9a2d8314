"""The sidecar's work: admitting requests and events, running them, answering each once.

A mixin of :class:`~persona_mind.bridge._engine.Sidecar` (it uses the engine's
state and output); split out to keep each module small. Events go through one queue and one
worker (Pi's order); tool and command requests run as tasks of their own. At most
``max_admitted_bytes`` of params wait at once; past it the work is refused ``busy``
(issue 15, item 8). A request id may not be reused while in flight (item 10).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.actors import Mailbox
from persona_mind.bridge._host import say
from persona_mind.messages import bridge as b
from persona_mind.messages.host import (
    BeforeAgentStart,
    CommandCall,
    CommandResult,
    HostEvent,
    PromptInjection,
    SessionShutdown,
    ToolCall,
    ToolResult,
)

if TYPE_CHECKING:
    from persona_mind.bridge._runtime import RuntimeLike

__all__ = ("MAX_ADMITTED_BYTES", "Work")


#: Params bytes of admitted work (queued events, running tools/commands) the sidecar holds
#: at most; past it a request is answered ``busy`` and a notify gets a ``busy`` error frame.
MAX_ADMITTED_BYTES = 32 * 1024 * 1024


# The params decoders are built at first use, after ``ready``: building the one for the
# host events' union costs ~1 ms of CPU that start-to-ready does not need (issue 24 item 6).
@functools.cache
def _event_params() -> msgspec.json.Decoder[b.EventParams]:
    return msgspec.json.Decoder(b.EventParams)


@functools.cache
def _tool() -> msgspec.json.Decoder[ToolCall]:
    return msgspec.json.Decoder(ToolCall)


@functools.cache
def _command() -> msgspec.json.Decoder[CommandCall]:
    return msgspec.json.Decoder(CommandCall)


@functools.cache
def _cancel() -> msgspec.json.Decoder[b.CancelParams]:
    return msgspec.json.Decoder(b.CancelParams)


class _EventCancelled(Exception):
    """The event request the worker ran was cancelled by Pi (or ``stop``), not the worker."""


class Work:
    """Request/notify handling of the sidecar engine (see the module doc)."""

    runtime: RuntimeLike | None
    state: str
    max_admitted_bytes: int
    admitted_bytes: int
    _inflight: dict[int, asyncio.Task[Any]]
    _worker: asyncio.Task[Any] | None
    """The event worker's task, the one that runs :meth:`_event_worker`."""
    _events: Mailbox[tuple[int | None, HostEvent, int] | None]
    _cancelled: set[int]
    _waiting: set[int]
    _running: int | None
    """The event request the worker is running now (``None``: idle or a notify)."""
    _cancel_asked: bool
    """Pi (or ``stop``) asked to cancel :attr:`_running`: the worker was cancelled for it."""
    _idle: asyncio.Future[None] | None
    """Made by ``stop`` while an event runs; resolved when the worker leaves it."""

    if TYPE_CHECKING:  # provided by the engine

        def emit(self, frame: b.Frame) -> None: ...
        def _respond(self, ident: int, result: object = None) -> None: ...
        def _fail(self, ident: int, code: b.ErrorCode, message: str) -> None: ...
        def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]: ...
        async def _shutdown(self, ident: int) -> None: ...
        async def stop(self, code: int) -> None: ...

    def _admit(self, size: int, what: str) -> str | None:
        """Reserve ``size`` bytes of admitted work, or say why not (the ``busy`` message)."""
        if self.admitted_bytes and self.admitted_bytes + size > self.max_admitted_bytes:
            return (
                f"{what} was refused, not run: {self.admitted_bytes} bytes of earlier work "
                f"are still waiting (cap {self.max_admitted_bytes}); send it again later"
            )
        self.admitted_bytes += size
        return None

    def _release(self, size: int) -> None:
        self.admitted_bytes -= size

    def _on_request(self, req: b.Request) -> None:
        method = req.method
        if method == "ping":
            self.emit(b.Response(id=req.id, result=req.params))
            return
        if method == "shutdown":
            self._spawn(self._shutdown(req.id))
            return
        if method not in {"event", "tool", "command"}:
            self._fail(req.id, "unknown_method", f"the sidecar has no method {method!r}")
            return
        if self.state != "ready":
            code: b.ErrorCode = (
                "shutting_down" if self.state in {"stopping", "stopped"} else "not_ready"
            )
            self._fail(req.id, code, f"the sidecar is {self.state}; {method!r} was not run")
            return
        if req.id in self._inflight or req.id in self._waiting:
            self._fail(
                req.id,
                "duplicate_id",
                f"request id {req.id} is still in flight; {method!r} was not run "
                "(use a new id for every request)",
            )
            return
        size = len(req.params)
        try:
            if method == "event":
                event = _event_params().decode(req.params).event
            elif method == "tool":
                call: ToolCall | CommandCall = _tool().decode(req.params)
            else:
                call = _command().decode(req.params)
        except msgspec.DecodeError as err:
            self._fail(req.id, "bad_params", f"params of {method!r} do not decode: {err}")
            return
        refused = self._admit(size, f"{method!r} request {req.id}")
        if refused is not None:
            self._fail(req.id, "busy", refused)
        elif method == "event":
            self._events.put((req.id, event, size))
            self._waiting.add(req.id)
        elif isinstance(call, ToolCall):
            self._track(req.id, size, f"tool {call.name!r}", call)
        else:
            self._track(req.id, size, f"/{call.name}", call)

    def _on_notify(self, note: b.Notify) -> None:
        try:
            if note.method == "event":
                if self.state == "ready":
                    event = _event_params().decode(note.params).event
                    size = len(note.params)
                    refused = self._admit(size, f"event {type(event).__name__}")
                    if refused is None:
                        self._events.put((None, event, size))
                    else:
                        say(refused)
                        self.emit(b.ErrorFrame(code="busy", message=refused))
            elif note.method == "cancel":
                ident = _cancel().decode(note.params).id
                task = self._inflight.get(ident)
                if task is not None:
                    say(f"Pi cancelled request {ident}; stopping it")
                    if not self._cancel_event(ident):
                        task.cancel()
                elif ident in self._waiting:
                    self._cancelled.add(ident)  # an event still waiting its turn
            else:
                self.emit(b.ErrorFrame(code="unknown_method", message=f"no notify {note.method!r}"))
        except msgspec.DecodeError as err:
            self.emit(b.ErrorFrame(code="bad_params", message=f"bad {note.method!r} notify: {err}"))

    def _track(self, ident: int, size: int, label: str, call: ToolCall | CommandCall) -> None:
        """Run a tool/command request as its own task; it is answered exactly once."""
        started = False

        async def run() -> None:
            nonlocal started
            started = True
            await self._answer(ident, label, call)

        task = self._spawn(run())
        self._inflight[ident] = task

        def done(_t: asyncio.Task[Any]) -> None:
            self._release(size)
            if self._inflight.get(ident) is task:  # never another request's entry
                del self._inflight[ident]
            if task.cancelled() and not started:  # cancelled before its first step
                self._fail(ident, "cancelled", f"{label} was cancelled before it ran")

        task.add_done_callback(done)

    async def _answer(self, ident: int, label: str, call: ToolCall | CommandCall) -> None:
        """Respond with the runtime's result, or fail the request naming ``label``."""
        assert self.runtime is not None
        try:
            if isinstance(call, ToolCall):
                result: ToolResult | CommandResult = await self.runtime.tool(call)
            else:
                result = await self.runtime.command(call)
        except asyncio.CancelledError:
            self._fail(ident, "cancelled", f"{label} was cancelled")
            raise
        except Exception as err:
            self._fail(ident, "failed", f"{label} failed: {err}")
            return
        self._respond(ident, result)

    async def _event_worker(self) -> None:
        """Apply events strictly in arrival order (the runtime sees Pi's order).

        A ``cancel`` from Pi (its timeout) stops a hung event request and the events behind
        it still run (see :meth:`_run_event`: the request runs on this task, which is
        cancelled for it alone); a cancelled event that has not started yet is skipped.
        """
        while (item := await self._events.get()) is not None:
            ident, event, size = item
            try:
                await self._apply(ident, event)
            finally:
                self._release(size)

    async def _apply(self, ident: int | None, event: HostEvent) -> None:
        assert self.runtime is not None
        name = type(event).__name__
        if ident is not None:
            self._waiting.discard(ident)
        if ident is not None and ident in self._cancelled:
            self._cancelled.discard(ident)
            self._fail(ident, "cancelled", f"{name} was cancelled before it ran")
            return
        try:
            if ident is None:  # a notify: nothing can cancel it
                result = await self.runtime.event(event)
            else:
                result = await self._run_event(ident, event)
        except _EventCancelled:
            assert ident is not None
            self._fail(ident, "cancelled", f"{name} was cancelled (Pi stopped waiting)")
            return
        except Exception as err:
            msg = f"{name} failed in the runtime: {err}"
            if ident is None:
                self.emit(b.ErrorFrame(code="failed", message=msg))
            else:
                self._fail(ident, "failed", msg)
            return
        kind = type(event)  # decoded events are these exact classes (no class-pattern lookup)
        if ident is not None:
            self._respond(ident, result if kind is BeforeAgentStart else None)
        if kind is SessionShutdown:
            self._spawn(self.stop(0))

    async def _run_event(self, ident: int, event: HostEvent) -> PromptInjection | None:
        """Run an event request on the worker's own task, cancellable by Pi's ``cancel``.

        No task of its own per event (issue 10: a task, its first step and the wake-up of
        the worker awaiting it were two loop iterations and ~10 µs of each turn's CPU).
        A cancel for ``ident`` cancels the worker while it is in here — the only place it
        awaits while :attr:`_running` is ``ident`` — and is taken back (``uncancel``) on
        the way out, so the worker goes on with the next event; a cancel of the worker by
        anyone else (the loop shutting down) still ends it.
        """
        assert self.runtime is not None
        worker = self._worker  # this very task (no current_task() look-up: a getpid each)
        assert worker is not None
        self._inflight[ident] = worker
        self._running = ident
        try:
            return await self.runtime.event(event)
        except asyncio.CancelledError:
            if self._cancel_asked:
                self._cancel_asked = False
                if worker.uncancel() == 0:  # only ours: the worker goes on
                    raise _EventCancelled from None
            raise  # the worker itself is being stopped
        finally:
            self._inflight.pop(ident, None)
            self._running = None
            if self._cancel_asked:  # asked, but the runtime finished all the same
                self._cancel_asked = False
                worker.uncancel()
            if self._idle is not None and not self._idle.done():
                self._idle.set_result(None)

    def _cancel_event(self, ident: int) -> bool:
        """Cancel the event request ``ident`` if the worker is running it (else False)."""
        if self._running != ident:
            return False
        task = self._inflight.get(ident)
        if task is not None and not self._cancel_asked:
            self._cancel_asked = True
            task.cancel()
        return True
