"""The Python sidecar the Pi extension starts: frames on stdin/stdout ↔ a ``Runtime``.

``python -m persona_mind.runners.sidecar`` (or ``persona-mind sidecar``) reads the frames of
``persona_mind.messages.bridge`` on stdin and writes its own on the *original* stdout; fd 1 is
pointed at stderr at start, so a stray ``print`` anywhere in the runtime lands in Pi's log
instead of corrupting the protocol. Flow (see ``docs/bridge.md``):

1. the extension sends ``hello``; the sidecar builds the runtime (``Runtime(host,
   agent_dir=...)``), enters it and answers ``ready`` with its tool and command specs;
2. ``event`` frames are applied one at a time, in arrival order (one worker, a queue — the
   mailbox order the actor rules ask for); ``tool``/``command`` requests run concurrently and
   can be cancelled (``cancel`` notify) when Pi aborts a tool;
3. the runtime's :class:`~persona_mind.host.HostPort` requests go to the extension as request
   frames (:class:`BridgeHost`); an unanswered one fails with :class:`HostTimeout`;
4. ``shutdown`` or EOF on stdin stops the runtime and exits 0.

Nothing a peer sends can crash the loop: bad frames get an ``error`` frame, failing handlers
an error response. Heavy imports (the runtime) happen only after ``hello``.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import msgspec

from persona_mind.errors import HostError
from persona_mind.messages import bridge as b
from persona_mind.messages.host import (
    BeforeAgentStart,
    CommandCall,
    CommandResult,
    CommandSpec,
    CustomEntry,
    DisplayMessage,
    HostEvent,
    NotifyLevel,
    PromptInjection,
    SessionShutdown,
    ToolCall,
    ToolResult,
    ToolSpec,
)

if TYPE_CHECKING:
    from persona_mind.clock import Clock
    from persona_mind.runners.child import ChildReply, ChildRequest, PiBackend, ProgressFn

__all__ = (
    "BridgeHost",
    "HostDisconnected",
    "HostRequestFailed",
    "HostTimeout",
    "LazyPiBackend",
    "RuntimeLike",
    "Sidecar",
    "load_runtime_factory",
    "main",
)

T = TypeVar("T")
#: How long a HostPort request waits for the extension before failing.
HOST_TIMEOUT = float(os.environ.get("PERSONA_MIND_BRIDGE_HOST_TIMEOUT", "30"))
RUNTIME_ENV = "PERSONA_MIND_SIDECAR_RUNTIME"
DEFAULT_RUNTIME = "persona_mind.runtime:Runtime"


class HostTimeout(HostError):
    """The Pi extension did not answer a host request in time (is Pi busy or hung?)."""


class HostRequestFailed(HostError):
    """The Pi extension answered a host request with an error; the message is Pi's."""


class HostDisconnected(HostError):
    """The pipe to the Pi extension closed; the session is over, nothing more can be shown."""


class RuntimeLike(Protocol):
    """The part of ``persona_mind.runtime.Runtime`` the sidecar drives."""

    async def __aenter__(self) -> Any: ...
    async def __aexit__(self, *exc: object) -> Any: ...
    async def event(self, event: HostEvent) -> PromptInjection | None: ...
    async def tool(self, call: ToolCall) -> ToolResult: ...
    async def command(self, call: CommandCall) -> CommandResult: ...
    def tool_specs(self) -> Sequence[ToolSpec]: ...
    def command_specs(self) -> Sequence[CommandSpec]: ...


RuntimeFactory = Callable[..., RuntimeLike]


def load_runtime_factory(spec: str | None = None) -> RuntimeFactory:
    """``module:Name`` or ``/path/file.py:Name`` (env ``PERSONA_MIND_SIDECAR_RUNTIME``)."""
    spec = spec or os.environ.get(RUNTIME_ENV) or DEFAULT_RUNTIME
    where, _, name = spec.rpartition(":")
    if not where or not name:
        raise HostError(f"bad runtime spec {spec!r}; use 'package.module:Name' or 'file.py:Name'")
    if where.endswith(".py"):
        from importlib import util  # noqa: PLC0415 - only for file specs; keeps startup lean

        mod_spec = util.spec_from_file_location("_persona_mind_sidecar_rt", where)
        if mod_spec is None or mod_spec.loader is None:
            raise HostError(f"cannot load runtime file {where!r}")
        module = util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    factory: RuntimeFactory = getattr(module, name)
    return factory


class BridgeHost:
    """The runtime's :class:`HostPort` over the pipe: each call is a request frame to Pi."""

    def __init__(self, sidecar: Sidecar, timeout: float = HOST_TIMEOUT) -> None:
        self._side = sidecar
        self.timeout = timeout

    async def register_tools(self, tools: Sequence[ToolSpec]) -> None:
        await self._side.call("register_tools", b.RegisterToolsParams(tools=tuple(tools)))

    async def register_commands(self, commands: Sequence[CommandSpec]) -> None:
        params = b.RegisterCommandsParams(commands=tuple(commands))
        await self._side.call("register_commands", params)

    async def append_entry(self, custom_type: str, data: Any) -> None:
        await self._side.call(
            "append_entry", b.AppendEntryParams(custom_type=custom_type, data=data)
        )

    async def branch_entries(self) -> Sequence[CustomEntry]:
        res = await self._side.call("branch_entries", None, b.BranchEntriesResult)
        return res.entries

    async def notify(self, text: str, level: NotifyLevel = "info") -> None:
        await self._side.call("notify", b.NotifyParams(text=text, level=level))

    async def set_status(self, key: str, text: str | None) -> None:
        await self._side.call("set_status", b.SetStatusParams(key=key, text=text))

    async def display(self, message: DisplayMessage) -> None:
        await self._side.call("display", b.DisplayParams(message=message))

    async def request_reload(self) -> None:
        await self._side.call("reload", None)


_EVENT_PARAMS = msgspec.json.Decoder(b.EventParams)
_TOOL = msgspec.json.Decoder(ToolCall)
_COMMAND = msgspec.json.Decoder(CommandCall)
_CANCEL = msgspec.json.Decoder(b.CancelParams)


class Sidecar:
    """The protocol engine, transport-free: ``feed(bytes)`` in, ``send(bytes)`` out.

    The process wrapper (:func:`main`) plugs it into stdin/stdout; unit tests drive it
    directly. All state is touched only from the event loop.
    """

    def __init__(
        self,
        send: Callable[[bytes], None],
        runtime_factory: Callable[[], RuntimeFactory] = load_runtime_factory,
        *,
        max_frame_bytes: int = b.MAX_FRAME_BYTES,
        host_timeout: float = HOST_TIMEOUT,
        started_at: float | None = None,
    ) -> None:
        self._send = send
        self._factory = runtime_factory
        self._splitter = b.LineSplitter(max_frame_bytes)
        self.host = BridgeHost(self, host_timeout)
        self.runtime: RuntimeLike | None = None
        self.state = "new"  # new → starting → ready → stopping → stopped
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[msgspec.Raw]] = {}
        self._inflight: dict[int, asyncio.Task[Any]] = {}
        self._events: asyncio.Queue[tuple[int | None, HostEvent] | None] = asyncio.Queue()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._start_task: asyncio.Task[Any] | None = None
        self._cancelled: set[int] = set()
        self._waiting: set[int] = set()  # ids of event requests queued, not started
        self._started_at = time.monotonic() if started_at is None else started_at
        self.done: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    # -- output ---------------------------------------------------------------------------
    def emit(self, frame: b.Frame) -> None:
        if self.state != "stopped":
            self._send(b.encode_frame(frame))

    def _respond(self, ident: int, result: object = None) -> None:
        line = b.encode_frame(b.Response(id=ident, result=b.raw(result)))
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
        for line in self._splitter.feed(data):
            if line is None:
                limit = self._splitter.max_bytes
                message = f"a frame over {limit} bytes was skipped; send smaller frames"
                self.emit(b.ErrorFrame(code="oversized", message=message))
            elif line.strip():
                self._on_frame(b.decode_frame(line))

    def eof(self) -> None:
        self._spawn(self.stop(0))

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _on_frame(self, frame: b.AnyFrame | b.BadFrame) -> None:
        match frame:
            case b.Hello():
                self._on_hello(frame)
            case b.Request():
                self._on_request(frame)
            case b.Notify():
                self._on_notify(frame)
            case b.Response():
                fut = self._pending.get(frame.id)
                if fut is None or fut.done():
                    if frame.error is not None:  # e.g. a late or unknown request failed
                        _say(
                            f"Pi answered request {frame.id} with {frame.error.code}: "
                            f"{frame.error.message}"
                        )
                    return  # a late answer to a request that already timed out
                if frame.error is not None:
                    fut.set_exception(HostRequestFailed(f"Pi: {frame.error.message}"))
                else:
                    fut.set_result(frame.result)
            case b.BadFrame():
                self.emit(frame.reply)
            case b.ErrorFrame():
                _say(f"Pi reported {frame.code}: {frame.message}")
                pending = self._pending.get(frame.id) if frame.id is not None else None
                if pending is not None and not pending.done():  # Pi could not read our request
                    pending.set_exception(HostRequestFailed(f"Pi: {frame.message}"))
            case b.Ready():
                self.emit(
                    b.ErrorFrame(code="unknown_type", message="'ready' is sent by the sidecar")
                )

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
                **_children_kwargs(factory, hello),
            )
            await runtime.__aenter__()
        except Exception as err:
            self.emit(b.ErrorFrame(code="failed", message=f"runtime failed to start: {err!r}"))
            self._spawn(self.stop(1))  # stop() waits for this task, so not awaited here
            return
        if self.state != "starting":  # shutdown or EOF arrived while the runtime started
            await self._leave(runtime)
            return
        self.runtime = runtime
        self.state = "ready"
        self._spawn(self._event_worker())
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
        try:
            if method == "event":
                self._events.put_nowait((req.id, _EVENT_PARAMS.decode(req.params).event))
                self._waiting.add(req.id)
            elif method == "tool":
                self._track(req.id, self._run_tool(req.id, _TOOL.decode(req.params)))
            else:
                self._track(req.id, self._run_command(req.id, _COMMAND.decode(req.params)))
        except msgspec.DecodeError as err:
            self._fail(req.id, "bad_params", f"params of {method!r} do not decode: {err}")

    def _on_notify(self, note: b.Notify) -> None:
        try:
            if note.method == "event":
                if self.state == "ready":
                    self._events.put_nowait((None, _EVENT_PARAMS.decode(note.params).event))
            elif note.method == "cancel":
                ident = _CANCEL.decode(note.params).id
                task = self._inflight.get(ident)
                if task is not None:
                    _say(f"Pi cancelled request {ident}; stopping it")
                    task.cancel()
                elif ident in self._waiting:
                    self._cancelled.add(ident)  # an event still waiting its turn
            else:
                self.emit(b.ErrorFrame(code="unknown_method", message=f"no notify {note.method!r}"))
        except msgspec.DecodeError as err:
            self.emit(b.ErrorFrame(code="bad_params", message=f"bad {note.method!r} notify: {err}"))

    def _track(self, ident: int, coro: Any) -> None:
        task = self._spawn(coro)
        self._inflight[ident] = task
        task.add_done_callback(lambda _t: self._inflight.pop(ident, None))

    async def _run_tool(self, ident: int, call: ToolCall) -> None:
        assert self.runtime is not None
        await self._answer(ident, f"tool {call.name!r}", self.runtime.tool(call))

    async def _run_command(self, ident: int, call: CommandCall) -> None:
        assert self.runtime is not None
        await self._answer(ident, f"/{call.name}", self.runtime.command(call))

    async def _answer(
        self, ident: int, label: str, call: Coroutine[Any, Any, ToolResult | CommandResult]
    ) -> None:
        """Respond with ``call``'s result, or fail the request naming ``label``."""
        try:
            result = await call
        except asyncio.CancelledError:
            self._fail(ident, "cancelled", f"{label} was cancelled")
            raise
        except Exception as err:
            self._fail(ident, "failed", f"{label} failed: {err}")
            return
        self._respond(ident, result)

    async def _event_worker(self) -> None:
        """Apply events strictly in arrival order (the runtime sees Pi's order).

        Each event *request* runs as its own task so a ``cancel`` from Pi (its timeout) stops
        a hung handler and the events behind it still run; a cancelled event that has not
        started yet is skipped.
        """
        while (item := await self._events.get()) is not None:
            ident, event = item
            assert self.runtime is not None
            name = type(event).__name__
            if ident is not None:
                self._waiting.discard(ident)
            if ident is not None and ident in self._cancelled:
                self._cancelled.discard(ident)
                self._fail(ident, "cancelled", f"{name} was cancelled before it ran")
                continue
            try:
                if ident is None:  # a notify: nothing can cancel it, so no task of its own
                    result = await self.runtime.event(event)
                else:
                    task = asyncio.ensure_future(self.runtime.event(event))
                    self._inflight[ident] = task
                    try:
                        result = await task
                    finally:
                        self._inflight.pop(ident, None)
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if ident is None or (current is not None and current.cancelling()):
                    raise  # the worker itself is being stopped
                self._fail(ident, "cancelled", f"{name} was cancelled (Pi stopped waiting)")
                continue
            except Exception as err:
                msg = f"{name} failed in the runtime: {err}"
                if ident is None:
                    self.emit(b.ErrorFrame(code="failed", message=msg))
                else:
                    self._fail(ident, "failed", msg)
                continue
            if ident is not None:
                self._respond(ident, result if isinstance(event, BeforeAgentStart) else None)
            if isinstance(event, SessionShutdown):
                self._spawn(self.stop(0))

    async def _shutdown(self, ident: int) -> None:
        self._respond(ident, None)
        await self.stop(0)

    async def stop(self, code: int) -> None:
        """Stop serving: fail in-flight work, leave the runtime, resolve :attr:`done`."""
        if self.state in {"stopping", "stopped"}:
            return
        starting = self._start_task if self.state == "starting" else None
        self.state = "stopping"
        if starting is not None and starting is not asyncio.current_task():
            await asyncio.gather(starting, return_exceptions=True)  # it leaves the runtime
        inflight = list(self._inflight.values())
        for task in inflight:
            task.cancel()
        await asyncio.gather(*inflight, return_exceptions=True)  # each answers "cancelled"
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(HostDisconnected("the sidecar is stopping"))
        self._events.put_nowait(None)
        if self.runtime is not None and not await self._leave(self.runtime):
            code = code or 1
        self.state = "stopped"
        if not self.done.done():
            self.done.set_result(code)

    @staticmethod
    async def _leave(runtime: RuntimeLike) -> bool:
        """Exit the runtime's context; False (and a diagnostic) if that failed."""
        try:
            await runtime.__aexit__(None, None, None)
        except Exception as err:
            _say(f"runtime stop failed: {err!r}")
            return False
        return True


def _children_kwargs(factory: RuntimeFactory, hello: b.Hello) -> dict[str, Any]:
    """``clock`` + ``child_backend`` for a runtime that takes them and a host that said how
    to start its Pi (consults and round-tables then run the very Pi the user runs).

    ``PERSONA_MIND_CHILDREN=0`` turns children off. The backend's children get the kill
    switch env, so they never load this bridge again.
    """
    if not hello.pi_command or os.environ.get("PERSONA_MIND_CHILDREN") == "0":
        return {}
    import inspect  # noqa: PLC0415 - already loaded by asyncio; kept local for clarity

    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return {}
    if "child_backend" not in params:
        return {}
    from persona_mind.clock import MonotonicClock  # noqa: PLC0415

    clock = MonotonicClock()
    kwargs: dict[str, Any] = {"child_backend": LazyPiBackend(hello.pi_command, clock=clock)}
    if "clock" in params:
        kwargs["clock"] = clock
    return kwargs


class LazyPiBackend:
    """A ``PiBackend`` built at the first child run.

    A session that never consults does not import the child runner, and the sidecar
    answers ``ready`` without it (``docs/bridge.md``, performance). Same name, same runs.
    """

    name = "pi"

    def __init__(self, command: Sequence[str], *, clock: Clock) -> None:
        self.command = tuple(command)
        self.clock = clock
        self._backend: PiBackend | None = None

    @property
    def backend(self) -> PiBackend:
        """The real ``PiBackend`` (built now if no child has run yet)."""
        if self._backend is None:
            from persona_mind.runners.child import PiBackend  # noqa: PLC0415 - first child

            self._backend = PiBackend(self.command, clock=self.clock)
        return self._backend

    async def run(self, request: ChildRequest, on_progress: ProgressFn) -> ChildReply:
        return await self.backend.run(request, on_progress)


def _say(text: str) -> None:
    """A diagnostic line on stderr (the extension logs it with PERSONA_MIND_BRIDGE_LOG)."""
    print(f"persona-mind sidecar: {text}", file=sys.stderr, flush=True)


class _StdinProtocol(asyncio.Protocol):
    def __init__(self, sidecar: Sidecar) -> None:
        self.sidecar = sidecar

    def data_received(self, data: bytes) -> None:
        self.sidecar.feed(data)

    def eof_received(self) -> bool | None:
        self.sidecar.eof()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.sidecar.eof()


async def _serve(started_at: float) -> int:
    loop = asyncio.get_running_loop()
    proto_out = os.dup(1)
    os.dup2(2, 1)  # stray prints now go to stderr; frames use the saved descriptor
    out = os.fdopen(proto_out, "wb", buffering=0)
    transport, _ = await loop.connect_write_pipe(asyncio.Protocol, out)
    sidecar = Sidecar(transport.write, started_at=started_at)
    await loop.connect_read_pipe(lambda: _StdinProtocol(sidecar), sys.stdin.buffer)
    code = await sidecar.done
    with contextlib.suppress(Exception):
        transport.close()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the sidecar until ``shutdown`` or EOF; exit code 0, or 1 if the runtime failed."""
    del argv
    started_at = time.monotonic()
    return asyncio.run(_serve(started_at))


if __name__ == "__main__":
    raise SystemExit(main())
