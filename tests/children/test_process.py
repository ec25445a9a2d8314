"""The process layer: own group, frames of any size, bounded stderr, the cancel ladder."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest

from persona_mind.children import (
    CancelLadder,
    ChildProtocolError,
    ChildSpawnFailed,
    ProcessSpec,
    group_alive,
    open_child,
)
from persona_mind.testing import ManualClock
from tests.children._helpers import group_members, pid_alive

PY = sys.executable


def spec(code: str, **kw: object) -> ProcessSpec:
    return ProcessSpec(argv=[PY, "-S", "-c", code], **kw)  # type: ignore[arg-type]


@asynccontextmanager
async def ticking(clock: ManualClock, step: float = 1.0) -> AsyncIterator[None]:
    """Advance the manual clock in the background so ladder rungs can time out."""
    async with anyio.create_task_group() as tg:

        async def tick() -> None:
            while True:
                await anyio.sleep(0.01)
                clock.advance(step)

        tg.start_soon(tick)
        yield
        tg.cancel_scope.cancel()


@pytest.mark.asyncio
async def test_child_leads_its_own_process_group() -> None:
    """P-CHILD-3: each child gets a new session so the whole group can be signalled."""
    clock = ManualClock()
    async with open_child(
        spec("import time; print('hi', flush=True); time.sleep(5)"), clock
    ) as proc:
        assert await proc.read_frame() == b"hi"
        assert proc.pgid == proc.pid
        assert group_members(proc.pgid) == [proc.pid]
        pgid = proc.pgid
        await proc.stop(CancelLadder(abort_grace=1, term_grace=1, kill_grace=5))
    assert proc.stop_steps == ["term"]
    assert not group_alive(pgid) or group_members(pgid) == []


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 5 * 1024 * 1024])
async def test_frames_of_any_size_are_read_whole(size: int) -> None:
    """Frames beyond asyncio's 64 KiB line limit arrive whole (notes pitfall 9)."""
    code = f"import sys; sys.stdout.write('x' * {size} + '\\n' + 'tail\\n')"
    async with open_child(spec(code), ManualClock()) as proc:
        first = await proc.read_frame()
        assert first is not None
        assert len(first) == size
        assert await proc.read_frame() == b"tail"
        assert await proc.read_frame() is None
        assert await proc.wait() == 0


@pytest.mark.asyncio
@pytest.mark.parametrize(("size", "ok"), [(999, True), (1000, True), (1001, False)])
async def test_frame_limit_is_exact(size: int, ok: bool) -> None:
    """A frame larger than the limit is a protocol error, not memory exhaustion."""
    code = f"import sys; sys.stdout.write('y' * {size} + '\\n')"
    async with open_child(spec(code, frame_limit=1000), ManualClock()) as proc:
        if ok:
            frame = await proc.read_frame()
            assert frame is not None
            assert len(frame) == size
        else:
            with pytest.raises(ChildProtocolError, match="exceeded 1000 bytes"):
                await proc.read_frame()


@pytest.mark.asyncio
async def test_unterminated_last_frame_is_returned_at_eof() -> None:
    async with open_child(spec("import sys; sys.stdout.write('{\"a\":1}')"), ManualClock()) as proc:
        assert await proc.read_frame() == b'{"a":1}'
        assert await proc.read_frame() is None


@pytest.mark.asyncio
async def test_stderr_is_drained_and_only_its_tail_kept() -> None:
    """A chatty stderr never blocks the child; only the last ``stderr_limit`` bytes stay."""
    code = "import sys; sys.stderr.write('e' * 300000 + 'END'); print('done')"
    async with open_child(spec(code, stderr_limit=1000), ManualClock()) as proc:
        assert await proc.read_frame() == b"done"
        await proc.wait()
    text = proc.stderr_text()
    assert len(text) == 1000
    assert text.endswith("END")


@pytest.mark.asyncio
async def test_stdin_data_is_delivered_then_closed() -> None:
    code = "import sys; data = sys.stdin.read(); print(len(data))"
    async with open_child(spec(code, stdin_data=b"z" * 200000), ManualClock()) as proc:
        assert await proc.read_frame() == b"200000"


@pytest.mark.asyncio
async def test_missing_executable_is_a_typed_spawn_failure() -> None:
    with pytest.raises(ChildSpawnFailed, match="could not start child"):
        async with open_child(ProcessSpec(argv=["/nonexistent/pi"]), ManualClock()):
            pass


@pytest.mark.asyncio
async def test_ladder_uses_sigkill_when_sigterm_is_ignored() -> None:
    """The ladder climbs: SIGTERM ignored → SIGKILL to the group, each rung bounded."""
    code = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('ready', flush=True); time.sleep(60)"
    )
    clock = ManualClock()
    async with open_child(spec(code), clock) as proc:
        assert await proc.read_frame() == b"ready"
        async with ticking(clock, step=0.1):
            await proc.stop(CancelLadder(abort_grace=1, term_grace=1, kill_grace=50))
        assert proc.returncode == -9
    assert proc.stop_steps == ["term", "kill"]
    assert group_members(proc.pgid) == []


@pytest.mark.asyncio
async def test_abort_frame_first_then_eof_in_rpc_mode() -> None:
    """RPC mode: the first rung writes the abort frame and closes stdin (graceful)."""
    code = (
        "import sys; line = sys.stdin.readline(); print('got ' + line.strip(), flush=True); "
        "sys.stdin.read()"
    )
    clock = ManualClock()
    s = spec(code, keep_stdin_open=True, abort_frame=b'{"type":"abort"}')
    async with open_child(s, clock) as proc:
        await proc.stop(CancelLadder())  # the clock never moves: the child exits on its own
        assert await proc.read_frame() == b'got {"type":"abort"}'
    assert proc.stop_steps == ["abort"]
    assert proc.returncode == 0


@pytest.mark.asyncio
async def test_cancellation_stops_the_group_including_grandchildren() -> None:
    """No orphans: a grandchild in the group dies with the child when the caller cancels."""
    code = (
        "import subprocess, time; c = subprocess.Popen(['sleep', '60']); "
        "print(c.pid, flush=True); time.sleep(60)"
    )
    clock = ManualClock()
    seen: dict[str, int] = {}
    async with ticking(clock):
        with anyio.CancelScope() as scope:
            async with open_child(spec(code), clock) as proc:
                frame = await proc.read_frame()
                assert frame is not None
                seen["grandchild"] = int(frame)
                seen["pgid"] = proc.pgid
                assert pid_alive(seen["grandchild"])
                scope.cancel()
                await anyio.sleep_forever()
    assert not pid_alive(seen["grandchild"])
    assert group_members(seen["pgid"]) == []


@pytest.mark.asyncio
async def test_leader_exit_still_sweeps_the_group() -> None:
    """The child exits normally but leaves a grandchild: the final sweep kills it."""
    code = "import subprocess; c = subprocess.Popen(['sleep', '60']); print(c.pid, flush=True)"
    async with open_child(spec(code), ManualClock()) as proc:
        frame = await proc.read_frame()
        assert frame is not None
        grandchild = int(frame)
        await proc.wait()
    assert proc.stop_steps == []
    assert not pid_alive(grandchild)
