"""The sidecar's protocol engine, transport-free: ``feed(bytes)`` in, ``send(bytes)`` out.

See :mod:`persona_mind.bridge.sidecar` for the flow and ``docs/bridge.md`` for the
protocol. This module holds the state machine (new → starting → ready → stopping →
stopped), the output, host requests, the handshake, the escalation watch and stopping;
:mod:`~persona_mind.bridge._work` admits and runs the requests and events (at most
:data:`MAX_ADMITTED_BYTES` of params at once, ``busy`` beyond that; issue 15, item 8).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from persona_mind.actors import Mailbox
from persona_mind.bridge._host import (
    HOST_TIMEOUT,
    BridgeHost,
    HostDisconnected,
    HostRequestFailed,
    HostTimeout,
    host_timeout_from_env,
    say,
)
from persona_mind.bridge._runtime import (
    RuntimeFactory,
    RuntimeLike,
    children_kwargs,
    failure_watch,
    load_runtime_factory,
)
from persona_mind.bridge._work import MAX_ADMITTED_BYTES, Work
from persona_mind.errors import HostError
from persona_mind.messages import bridge as b
from persona_mind.messages.host import HostEvent, SessionShutdown

__all__ = ("EXIT_ESCALATED", "EXIT_FAILED", "MAX_ADMITTED_BYTES", "Sidecar", "say")

T = TypeVar("T")
#: Exit code when the runtime failed to start or to stop cleanly.
EXIT_FAILED = 1
#: Exit code when the runtime's root supervisor gave up (the extension restarts us).
EXIT_ESCALATED = 3
#: How long a stop after EOF or a signal lets the events queued before it run (each is
#: bounded by its own deadlines; this bounds a hung one). After it the rest is cancelled.
DRAIN_TIMEOUT = 20.0


class Sidecar(Work):
    """The protocol engine; the process wrapper plugs it into stdin/stdout.

    All state is touched only from the event loop. ``host_timeout=None`` reads
    ``$PERSONA_MIND_BRIDGE_HOST_TIMEOUT`` at ``hello`` (a bad value fails the start).
    """

    def __init__(
        self,
        send: Callable[[bytes], None],
        runtime_factory: Callable[[], RuntimeFactory] = load_runtime_factory,
        *,
        max_frame_bytes: int = b.MAX_FRAME_BYTES,
        max_admitted_bytes: int = MAX_ADMITTED_BYTES,
        host_timeout: float | None = None,
        started_at: float | None = None,
    ) -> None:
        self._send = send
        self._factory = runtime_factory
        self._splitter = b.LineSplitter(max_frame_bytes)
        self._host_timeout = host_timeout
        self.host = BridgeHost(self, HOST_TIMEOUT if host_timeout is None else host_timeout)
        self.runtime: RuntimeLike | None = None
        self.state = "new"  # new → starting → ready → stopping → stopped
        self.max_admitted_bytes = max_admitted_bytes
        self.admitted_bytes = 0
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[msgspec.Raw]] = {}
        self._inflight: dict[int, asyncio.Task[Any]] = {}
        self._events: Mailbox[tuple[int | None, HostEvent, int] | None] = Mailbox()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._start_task: asyncio.Task[Any] | None = None
        self._watch: asyncio.Task[Any] | None = None
        self._worker: asyncio.Task[Any] | None = None
        self._signalled = False
        self._failure: BaseException | None = None
        self._cancelled: set[int] = set()
        self._waiting: set[int] = set()  # ids of event requests queued, not started
        self._running: int | None = None
        self._cancel_asked = False
        self._idle: asyncio.Future[None] | None = None
        self._started_at = time.monotonic() if started_at is None else started_at
        self.done: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    # -- output ---------------------------------------------------------------------------
    def emit(self, frame: b.Frame) -> None:
        if self.state != "stopped":
            self._send(b.encode_frame(frame))

    def _respond(self, ident: int, result: object = None) -> None:
        line = b.response_line(ident, result)
        if len(line) - 1 > self._splitter.max_bytes:  # the peer would skip it and wait forever
            size = len(line) - 1
            self._fail(
                ident,
                "oversized",
                f"the answer is {size} bytes, over the frame cap "
                f"{self._splitter.max_bytes}; ask for less (a smaller limit or one id)",
            )
        elif self.state != "stopped":
            self._send(line)

    def _fail(self, ident: int, code: b.ErrorCode, message: str) -> None:
        self.emit(b.Response(id=ident, error=b.ErrorBody(code=code, message=message)))

    async def call(self, method: str, params: object, result_type: type[T] | None = None) -> T:
        """Send a request to the extension and await its response (HostPort plumbing)."""
        if self.state in {"stopping", "stopped"}:
            raise HostDisconnected(f"cannot send {method!r}: the sidecar is shutting down")
        self._next_id += 1
        ident = self._next_id
        line = b.encode_frame(b.Request(id=ident, method=method, params=b.raw(params)))
        if len(line) - 1 > self._splitter.max_bytes:
            raise HostError(
                f"{method!r} is {len(line) - 1} bytes, over the frame cap "
                f"{self._splitter.max_bytes}; send less (split it or trim it)"
            )
        fut: asyncio.Future[msgspec.Raw] = asyncio.get_running_loop().create_future()
        self._pending[ident] = fut
        self._send(line)
        try:
            result = await asyncio.wait_for(fut, self.host.timeout)
        except TimeoutError:
            raise HostTimeout(
                f"Pi did not answer {method!r} within {self.host.timeout:g}s; "
                "the extension may be hung — restart the Pi session"
            ) from None
        finally:
            self._pending.pop(ident, None)
        if result_type is None:
            return None  # type: ignore[return-value]
        return msgspec.json.decode(result, type=result_type)

    # -- input ----------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Handle every complete line in ``data``; one bad line never costs the others."""
        for line in self._splitter.feed(data):
            if line is None:
                limit = self._splitter.max_bytes
                message = f"a frame over {limit} bytes was skipped; send smaller frames"
                self.emit(b.ErrorFrame(code="oversized", message=message))
            elif line.strip():
                try:
                    self._on_frame(b.decode_frame(line))
                except Exception as err:  # a bug here must not drop the frames after it
                    say(f"a frame could not be handled: {err!r}")
                    self.emit(b.ErrorFrame(code="failed", message=f"frame not handled: {err}"))

    def eof(self) -> None:
        """Stdin ended: stop, but first apply every event queued before it (issue 24: a
        bare EOF used to drop queued capture inputs — 2 of 5 kept)."""
        self._spawn(self.stop(0, drain=True))

    def terminate(self, signame: str = "SIGTERM") -> None:
        """SIGTERM/SIGINT: leave the way Pi's ``session_shutdown`` does — the events queued so
        far run, then a :class:`SessionShutdown`, then the runtime stops (its stores are
        written when each mutation is acknowledged) and the process exits 0. A second
        signal stops at once, cancelling what still runs."""
        if self._signalled:
            say(f"{signame} again: stopping now")
            if self._worker is not None:
                self._worker.cancel()
            return
        self._signalled = True
        say(f"{signame}: shutting down (session_shutdown path)")
        if self.state == "ready":
            self._events.put((None, SessionShutdown(reason="quit"), 0))
        self._spawn(self.stop(0, drain=True))

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _on_frame(self, frame: b.AnyFrame | b.BadFrame) -> None:
        if type(frame) is b.Request:  # the usual frame: skip the class patterns' lookups
            self._on_request(frame)
            return
        match frame:
            case b.Hello():
                self._on_hello(frame)
            case b.Request():
                self._on_request(frame)
            case b.Notify():
                self._on_notify(frame)
            case b.Response():
                self._on_response(frame)
            case b.BadFrame():
                self.emit(frame.reply)
                pending = self._pending.get(frame.answers) if frame.answers is not None else None
                if pending is not None and not pending.done():  # Pi's answer was unreadable
                    pending.set_exception(
                        HostRequestFailed(f"Pi's answer could not be read: {frame.reply.message}")
                    )
            case b.ErrorFrame():
                say(f"Pi reported {frame.code}: {frame.message}")
                pending = self._pending.get(frame.id) if frame.id is not None else None
                if pending is not None and not pending.done():  # Pi could not read our request
                    pending.set_exception(HostRequestFailed(f"Pi: {frame.message}"))
            case b.Ready():
                self.emit(
                    b.ErrorFrame(code="unknown_type", message="'ready' is sent by the sidecar")
                )

    def _on_response(self, frame: b.Response) -> None:
        fut = self._pending.get(frame.id)
        if fut is None or fut.done():
            if frame.error is not None:  # e.g. a late or unknown request failed
                error = frame.error
                say(f"Pi answered request {frame.id} with {error.code}: {error.message}")
            return  # a late answer to a request that already timed out
        if frame.error is not None:
            fut.set_exception(HostRequestFailed(f"Pi: {frame.error.message}"))
        else:
            fut.set_result(frame.result)

    def _on_hello(self, hello: b.Hello) -> None:
        if hello.protocol != b.PROTOCOL_VERSION:
            self.emit(
                b.ErrorFrame(
                    code="protocol_version",
                    message=f"sidecar speaks protocol {b.PROTOCOL_VERSION}, extension "
                    f"{hello.protocol}; install matching persona-mind and pi-extension versions",
                )
            )
            return
        if self.state != "new":
            self.emit(b.ErrorFrame(code="malformed", message="duplicate hello ignored"))
            return
        self.state = "starting"
        self._start_task = self._spawn(self._start(hello))

    async def _start(self, hello: b.Hello) -> None:
        try:
            if self._host_timeout is None:
                self.host.timeout = host_timeout_from_env()
            factory = self._factory()
            agent_dir = Path(
                hello.agent_dir
                or os.environ.get("PI_CODING_AGENT_DIR")
                or Path.home() / ".pi" / "agent"
            )
            trace = os.environ.get("PERSONA_MIND_TRACE")
            runtime = factory(
                self.host,
                agent_dir=agent_dir,
                trace_path=Path(trace) if trace else None,
                **children_kwargs(factory, hello),
            )
            await runtime.__aenter__()
        except Exception as err:
            self.emit(b.ErrorFrame(code="failed", message=f"runtime failed to start: {err!r}"))
            self._spawn(self.stop(EXIT_FAILED))  # stop() waits for this task, not awaited here
            return
        if self.state != "starting":  # shutdown or EOF arrived while the runtime started
            await self._leave(runtime)
            return
        self.runtime = runtime
        self.state = "ready"
        wait = failure_watch(runtime)
        if wait is not None:
            self._watch = self._spawn(self._watch_failure(wait))
        self._worker = self._spawn(self._event_worker())
        self.emit(
            b.Ready(
                protocol=b.PROTOCOL_VERSION,
                pid=os.getpid(),
                tools=tuple(runtime.tool_specs()),
                commands=tuple(runtime.command_specs()),
                runtime=f"{type(runtime).__module__}.{type(runtime).__qualname__}",
                startup_ms=round((time.monotonic() - self._started_at) * 1000, 1),
            )
        )

    async def _watch_failure(self, wait: Callable[[], Awaitable[BaseException]]) -> None:
        """Race serving against the runtime giving up: escalation past the root ends us."""
        failure = await wait()
        if self.state in {"stopping", "stopped"}:
            return
        self._failure = failure
        say(
            f"the runtime gave up ({failure}); exiting with code {EXIT_ESCALATED} so the "
            "Pi extension restarts persona-mind"
        )
        await self.stop(EXIT_ESCALATED)

    # -- stopping -------------------------------------------------------------------------
    async def _shutdown(self, ident: int) -> None:
        self._respond(ident, None)
        await self.stop(0)

    async def stop(self, code: int, *, drain: bool = False) -> None:
        """Stop serving: fail in-flight work, leave the runtime, resolve :attr:`done`.

        With ``drain`` (EOF, a signal) the events already queued run first — new work is
        refused ``shutting_down`` meanwhile, and host requests fail at once — for at most
        :data:`DRAIN_TIMEOUT`; tool and command requests are cancelled as always.
        """
        if self.state in {"stopping", "stopped"}:
            return
        starting = self._start_task if self.state == "starting" else None
        self.state = "stopping"
        if starting is not None and starting is not asyncio.current_task():
            await asyncio.gather(starting, return_exceptions=True)  # it leaves the runtime
        if self._watch is not None and self._watch is not asyncio.current_task():
            self._watch.cancel()
        worker = self._worker
        if drain and worker is not None and worker is not asyncio.current_task():
            self._events.put(None)  # after everything queued before the stop
            try:
                await asyncio.wait_for(asyncio.shield(worker), DRAIN_TIMEOUT)
            except TimeoutError:
                say(f"queued events did not finish within {DRAIN_TIMEOUT:g}s; cancelling them")
            except asyncio.CancelledError:
                if not worker.cancelled():  # we ourselves are being cancelled
                    raise
        # tool and command requests run as tasks of their own; an event request runs on the
        # event worker, which is cancelled for it alone and goes on (``_run_event``)
        running = self._running
        inflight: list[asyncio.Future[Any]] = [t for i, t in self._inflight.items() if i != running]
        for task in inflight:
            task.cancel()
        if running is not None and self._cancel_event(running):
            self._idle = asyncio.get_running_loop().create_future()
            inflight.append(self._idle)
        await asyncio.gather(*inflight, return_exceptions=True)  # each answers "cancelled"
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(HostDisconnected("the sidecar is stopping"))
        self._events.put(None)
        if self.runtime is not None and not await self._leave(self.runtime):
            code = code or EXIT_FAILED
        self.state = "stopped"
        if not self.done.done():
            self.done.set_result(code)

    async def _leave(self, runtime: RuntimeLike) -> bool:
        """Exit the runtime's context; False (and a diagnostic) if that failed."""
        try:
            await runtime.__aexit__(None, None, None)
        except Exception as err:
            if err is not self._failure:  # the escalation was reported once already
                say(f"runtime stop failed: {err!r}")
            return False
        return True
