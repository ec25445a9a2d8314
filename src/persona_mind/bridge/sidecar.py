"""The Python sidecar the Pi extension starts: frames on stdin/stdout ↔ a ``Runtime``.

``python -m persona_mind.bridge.sidecar`` (or ``persona-mind sidecar``) reads the frames of
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
4. ``shutdown`` or EOF on stdin stops the runtime and exits 0 (after EOF the events queued
   before it still run); SIGTERM or SIGINT take Pi's ``session_shutdown`` path — the queued
   events, a ``SessionShutdown``, the runtime's stop — and exit 0 (a second signal stops at
   once); a runtime that fails to start exits 1; a runtime whose root supervisor gives up
   exits 3 (one stderr line says why) and the extension restarts the sidecar.

Nothing a peer sends can crash the loop or grow it without bound: bad frames (not UTF-8,
nested too deep, oversized) get an ``error`` frame, failing handlers an error response, work
past the admitted-bytes cap a ``busy`` answer, and input is not read while the extension does
not read our output. Heavy imports (the runtime) happen only after ``hello``. The engine is
:mod:`~persona_mind.bridge._engine`; this module is the process around it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Sequence

from persona_mind.bridge._engine import (
    EXIT_ESCALATED,
    EXIT_FAILED,
    MAX_ADMITTED_BYTES,
    Sidecar,
    say,
)
from persona_mind.bridge._host import (
    HOST_TIMEOUT,
    BridgeConfigError,
    BridgeHost,
    HostDisconnected,
    HostRequestFailed,
    HostTimeout,
    host_timeout_from_env,
)
from persona_mind.bridge._runtime import (
    DEFAULT_RUNTIME,
    RUNTIME_ENV,
    LazyPiBackend,
    RuntimeLike,
    children_kwargs,
    load_runtime_factory,
)

__all__ = (
    "DEFAULT_RUNTIME",
    "EXIT_ESCALATED",
    "EXIT_FAILED",
    "HOST_TIMEOUT",
    "MAX_ADMITTED_BYTES",
    "OUTPUT_HIGH_WATER",
    "READ_SIZE",
    "RUNTIME_ENV",
    "BridgeConfigError",
    "BridgeHost",
    "HostDisconnected",
    "HostRequestFailed",
    "HostTimeout",
    "LazyPiBackend",
    "RuntimeLike",
    "Sidecar",
    "connect_stdin",
    "host_timeout_from_env",
    "load_runtime_factory",
    "main",
)

_children_kwargs = children_kwargs  # the name the bridge tests know

#: Bytes of unwritten output at which the sidecar stops reading input until the extension
#: catches up (asyncio's ``pause_writing``); the buffer then holds at most this plus the
#: frames of work already admitted.
OUTPUT_HIGH_WATER = 4 * 1024 * 1024
#: How long the event loop lets another thread hold the GIL (CPython's default is 5 ms).
#: Heavy work runs on threads (the store's IO, the first index build, the model's load and
#: vectors); a ping needs the GIL back after each of its few syscalls, so each hand-over
#: waits up to this.  0.2 ms kept every ping of the limits bench under 10 ms where 1 ms
#: missed between turns (``docs/bridge.md``, "The last GIL holds"); a forced hand-over only
#: happens when another thread waits, so a lone worker pays nothing (issue 15, item 9).
SWITCH_INTERVAL = 0.0002
#: The most one read of stdin takes: a default Linux pipe's whole capacity (16 pages), so no
#: read returns less than is there. asyncio's pipe transport reads 256 KiB at a time, and a
#: 256 KiB buffer per read — allocated, cut down to the frame, freed — is past glibc's
#: 128 KiB trim threshold: depending on the heap it costs two page faults and ~10 µs of
#: kernel time per frame, and on this machine it doubled the sidecar's CPU per hook round
#: trip (18.8 against 38.2 µs, ``docs/performance.md``; issue 24, item 6).
READ_SIZE = 64 * 1024


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


class _StdoutProtocol(asyncio.Protocol):
    """Backpressure: while our output is not read, stop reading input (issue 15, item 8)."""

    def __init__(self) -> None:
        self.reader: asyncio.ReadTransport | None = None
        self.transport: asyncio.WriteTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        self.transport = transport

    def pause_writing(self) -> None:
        size = self.transport.get_write_buffer_size() if self.transport is not None else 0
        say(
            f"Pi is not reading the sidecar's output ({size} bytes waiting); "
            "input is paused until it does"
        )
        if self.reader is not None and self.reader.is_reading():
            self.reader.pause_reading()

    def resume_writing(self) -> None:
        if self.reader is not None and not self.reader.is_reading():
            self.reader.resume_reading()


async def connect_stdin(sidecar: Sidecar, pipe: object) -> asyncio.ReadTransport:
    """Feed ``sidecar`` from ``pipe`` (a pipe's file object), at most :data:`READ_SIZE` a read."""
    loop = asyncio.get_running_loop()
    reader, _ = await loop.connect_read_pipe(lambda: _StdinProtocol(sidecar), pipe)
    if hasattr(reader, "max_size"):  # the selector loop's pipe transport: its read size
        reader.max_size = READ_SIZE
    return reader


async def _serve(started_at: float) -> int:
    loop = asyncio.get_running_loop()
    proto_out = os.dup(1)
    os.dup2(2, 1)  # stray prints now go to stderr; frames use the saved descriptor
    out = os.fdopen(proto_out, "wb", buffering=0)
    transport, writer = await loop.connect_write_pipe(_StdoutProtocol, out)
    transport.set_write_buffer_limits(high=OUTPUT_HIGH_WATER)
    sidecar = Sidecar(transport.write, started_at=started_at)
    writer.reader = await connect_stdin(sidecar, sys.stdin.buffer)
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # Windows
            loop.add_signal_handler(sig, sidecar.terminate, sig.name)
    code = await sidecar.done
    with contextlib.suppress(Exception):
        transport.close()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the sidecar until ``shutdown`` or EOF; the exit code says how it ended.

    0: asked to stop; 1 (:data:`EXIT_FAILED`): the runtime failed to start or stop;
    3 (:data:`EXIT_ESCALATED`): the runtime's root supervisor gave up.
    """
    del argv
    started_at = time.monotonic()
    sys.setswitchinterval(SWITCH_INTERVAL)
    return asyncio.run(_serve(started_at))


if __name__ == "__main__":
    raise SystemExit(main())
