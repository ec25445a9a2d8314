"""One supervised child process: spawn, frames in and out, bounded stderr, the cancel ladder.

Why this is its own layer: every backend that runs a real executable (the real ``pi`` and
the fake one) needs the same guarantees, and they are easy to get subtly wrong:

* the child runs in its **own process group** (``start_new_session``), so stopping it
  also stops whatever it spawned (``rg``, a shell tool) and nothing is orphaned;
* stdout is split into frames on ``\\n`` only, with no 64 KiB line limit (Pi puts whole
  transcripts on one line) but a hard upper bound so a runaway child cannot exhaust memory;
* stderr is drained continuously (a full pipe would block the child) and only its tail is
  kept;
* stopping is a **ladder**, each rung bounded by the injected clock: an RPC ``abort`` frame
  plus closing stdin (graceful), then SIGTERM to the group, then SIGKILL to the group; and
  on every exit path a final SIGKILL sweep of the group, shielded from cancellation.
"""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from functools import partial

import anyio
from anyio.abc import ByteReceiveStream, Process

from persona_mind.child_errors import ChildProtocolError, ChildSpawnFailed
from persona_mind.clock import Clock

__all__ = (
    "DEFAULT_FRAME_LIMIT",
    "DEFAULT_STDERR_LIMIT",
    "CancelLadder",
    "ChildProcess",
    "FrameReader",
    "ProcessSpec",
    "group_alive",
    "group_members",
    "open_child",
    "within",
)

DEFAULT_FRAME_LIMIT = 64 * 1024 * 1024
"""Largest stdout frame accepted (64 MiB; Pi's ``agent_end`` carries whole transcripts)."""
DEFAULT_STDERR_LIMIT = 64 * 1024
"""How much of the tail of stderr is kept for error messages."""

_CHUNK = 256 * 1024
_POLL_FIRST = 0.005
_POLL_MAX = 0.05


@dataclass(frozen=True)
class CancelLadder:
    """Bounds (seconds, on the injected clock) of each rung of the stop ladder.

    Pi answers ``abort`` in ~10 ms and exits 10-40 ms after EOF (notes/pi-host.md §5), so
    1.5 s is generous; abort + SIGTERM stay under the kernel's 5 s stop grace, so even a
    child that ignores both is SIGKILLed before the runtime's shutdown gives up waiting.
    """

    abort_grace: float = 1.5
    term_grace: float = 1.5
    kill_grace: float = 5.0


@dataclass(frozen=True)
class ProcessSpec:
    """What to run and how. ``abort_frame`` is written first when stopping (RPC mode)."""

    argv: Sequence[str]
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    stdin_data: bytes | None = None
    keep_stdin_open: bool = False
    abort_frame: bytes | None = None
    frame_limit: int = DEFAULT_FRAME_LIMIT
    stderr_limit: int = DEFAULT_STDERR_LIMIT
    label: str = "child"


async def within(clock: Clock, seconds: float, fn: Callable[[], Awaitable[object]]) -> bool:
    """Run ``fn`` but give up after ``seconds`` of *clock* time; ``True`` if it finished."""
    finished = False
    try:
        async with anyio.create_task_group() as tg:

            async def guard() -> None:
                await clock.sleep(seconds)
                tg.cancel_scope.cancel()

            tg.start_soon(guard)
            await fn()
            finished = True
            tg.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        raise _single(group) from None
    return finished


def _single(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The lone exception of a task group whose helper tasks never fail, else the group."""
    return group.exceptions[0] if len(group.exceptions) == 1 else group


def group_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` still exists (zombies count until reaped)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) pids of process group ``pgid``; empty once the group is gone.

    ``killpg(pgid, 0)`` answers first; only when the group still exists is ``/proc``
    scanned, because zombies (killed, not yet reaped by their new parent) still count for
    ``killpg`` but are no longer running anything. The scan reads each ``stat`` with raw
    ``os`` calls and parses bytes: most of its time is in system calls, which release the
    GIL, so a scan on a worker thread barely holds up the event loop.
    """
    if not group_alive(pgid):
        return []
    try:
        names = os.listdir("/proc")
    except OSError:  # not Linux: trust killpg
        return [pgid]
    members = []
    for name in names:
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{name}/stat", os.O_RDONLY | os.O_CLOEXEC)
            try:
                raw = os.read(fd, 4096)
            finally:
                os.close(fd)
        except OSError:  # the process ended between listdir and open
            continue
        # "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses
        fields = raw[raw.rfind(b")") + 2 :].split(b" ", 3)
        if len(fields) > 3 and int(fields[2]) == pgid and fields[0] != b"Z":
            members.append(int(name))
    return members


async def _group_gone(pgid: int) -> None:
    """Wait until no live member of ``pgid`` remains; callers bound it with the clock.

    Each poll first asks the kernel (``killpg(pgid, 0)``, one syscall, on the loop): a group
    that is gone — the usual case once the child was reaped — ends the wait without any scan.
    Only while the group still exists is ``/proc`` scanned, on a worker thread (a scan reads
    one file per process on the machine: milliseconds, never on the loop), to tell running
    members from zombies: an orphaned grandchild that was killed stays a zombie until its
    new parent reaps it, and under an init that never reaps (some containers) that is
    forever, while it runs nothing. Polls back off from 5 ms to 50 ms.
    """
    delay = _POLL_FIRST
    while group_alive(pgid):  # polled: no event exists for a foreign process group
        if not await anyio.to_thread.run_sync(group_members, pgid, abandon_on_cancel=True):
            return
        await anyio.sleep(delay)
        delay = min(delay * 2, _POLL_MAX)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class FrameReader:
    """Splits a byte stream into ``\\n``-terminated frames of any size up to ``limit``."""

    def __init__(self, stream: ByteReceiveStream, *, limit: int, label: str) -> None:
        self._stream = stream
        self._limit = limit
        self._label = label
        self._buf = bytearray()
        self._scanned = 0
        self._eof = False

    def _too_large(self) -> None:
        raise ChildProtocolError(self._label, f"a stdout frame exceeded {self._limit} bytes")

    async def read(self) -> bytes | None:
        """The next frame without its newline; ``None`` at end of stream."""
        while True:
            idx = self._buf.find(b"\n", self._scanned)
            if idx > self._limit:
                self._too_large()
            if idx >= 0:
                frame = bytes(self._buf[:idx])
                del self._buf[: idx + 1]
                self._scanned = 0
                return frame
            self._scanned = len(self._buf)
            if self._scanned > self._limit:
                self._too_large()
            if self._eof:
                if not self._buf:
                    return None
                frame = bytes(self._buf)
                self._buf.clear()
                self._scanned = 0
                return frame
            try:
                self._buf += await self._stream.receive(_CHUNK)
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                self._eof = True


@dataclass
class ChildProcess:
    """A running child in its own process group. Use :func:`open_child` to get one."""

    spec: ProcessSpec
    process: Process
    clock: Clock
    frames: FrameReader
    stop_steps: list[str] = field(default_factory=list)
    _stderr: bytearray = field(default_factory=bytearray)
    _stdin_open: bool = True
    _stderr_done: anyio.Event = field(default_factory=anyio.Event)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def pgid(self) -> int:
        """The child's process group id; equal to its pid (it leads a new session)."""
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def stderr_text(self) -> str:
        return self._stderr.decode("utf-8", "replace")

    async def read_frame(self) -> bytes | None:
        return await self.frames.read()

    async def send(self, frame: bytes) -> None:
        """Write one frame (a newline is appended). Fails quietly if the child closed stdin."""
        if not self._stdin_open or self.process.stdin is None:
            return
        try:
            await self.process.stdin.send(frame + b"\n")
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            self._stdin_open = False

    async def close_stdin(self) -> None:
        if self._stdin_open and self.process.stdin is not None:
            self._stdin_open = False
            with suppress(anyio.BrokenResourceError, OSError):
                await self.process.stdin.aclose()

    async def wait(self) -> int:
        return await self.process.wait()

    async def wait_for(self, seconds: float) -> bool:
        """Wait up to ``seconds`` (clock time) for the child to exit; ``True`` if it did."""
        if self.process.returncode is not None:
            return True
        return await within(self.clock, seconds, self.process.wait)

    async def stop(self, ladder: CancelLadder) -> None:
        """Stop the child: abort+EOF → SIGTERM group → SIGKILL group, each rung bounded."""
        if self.process.returncode is None and self.spec.abort_frame is not None:
            self.stop_steps.append("abort")
            await self.send(self.spec.abort_frame)
            await self.close_stdin()
            if await self.wait_for(ladder.abort_grace):
                return
        if self.process.returncode is None:
            self.stop_steps.append("term")
            _signal_group(self.pgid, signal.SIGTERM)
            if await self.wait_for(ladder.term_grace):
                return
        if self.process.returncode is None:
            self.stop_steps.append("kill")
            _signal_group(self.pgid, signal.SIGKILL)
            await self.wait_for(ladder.kill_grace)

    async def _pump_stderr(self) -> None:
        stream = self.process.stderr
        try:
            if stream is None:
                return
            limit = self.spec.stderr_limit
            while True:
                try:
                    chunk = await stream.receive(_CHUNK)
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
                self._stderr += chunk
                if len(self._stderr) > limit:
                    del self._stderr[: len(self._stderr) - limit]
        finally:
            self._stderr_done.set()

    async def _feed_stdin(self) -> None:
        if self.spec.stdin_data is not None:
            await self.send_raw(self.spec.stdin_data)
        if not self.spec.keep_stdin_open:
            await self.close_stdin()

    async def send_raw(self, data: bytes) -> None:
        if self._stdin_open and self.process.stdin is not None:
            try:
                await self.process.stdin.send(data)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                self._stdin_open = False


@asynccontextmanager
async def open_child(
    spec: ProcessSpec,
    clock: Clock,
    ladder: CancelLadder | None = None,
    on_exit: Callable[[ChildProcess], None] | None = None,
) -> AsyncIterator[ChildProcess]:
    """Spawn ``spec`` in a new process group; on exit (any path) stop it and sweep the group.

    On a normal exit the child is expected to have finished; if it has not, the ladder runs.
    On an exception or cancellation the ladder runs shielded, then the exception continues.
    ``on_exit`` is called once the child is gone (its return code and ``stop_steps`` final).
    """
    ladder = ladder or CancelLadder()
    try:
        process = await anyio.open_process(
            list(spec.argv),
            stdin=-1,
            stdout=-1,
            stderr=-1,
            cwd=spec.cwd,
            env=dict(spec.env) if spec.env is not None else None,
            start_new_session=True,
        )
    except OSError as exc:
        raise ChildSpawnFailed(spec.argv[0] if spec.argv else "", str(exc)) from exc
    assert process.stdout is not None
    child = ChildProcess(
        spec=spec,
        process=process,
        clock=clock,
        frames=FrameReader(process.stdout, limit=spec.frame_limit, label=spec.label),
    )
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(child._pump_stderr)
            try:
                await child._feed_stdin()
                yield child
            finally:
                with anyio.CancelScope(shield=True):
                    await child.stop(ladder)
                    _signal_group(child.pgid, signal.SIGKILL)
                    await within(clock, ladder.kill_grace, partial(_group_gone, child.pgid))
                    await within(clock, ladder.kill_grace, child._stderr_done.wait)
                    tg.cancel_scope.cancel()
                    if on_exit is not None:
                        on_exit(child)
    except BaseExceptionGroup as group:
        raise _single(group) from None
    finally:
        with anyio.CancelScope(shield=True):
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream is not None:
                    with suppress(anyio.BrokenResourceError, OSError):
                        await stream.aclose()
