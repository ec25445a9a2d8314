"""The sidecar's memory stays bounded under floods (issue 15, item 8).

Reproductions: 60 × 8 MiB ``Input`` notifies while the event worker is stuck took RSS from
31 MB to 530 MB (an unbounded event queue); 40 × 15 MiB pings with stdout unread took it to
691 MB (an unbounded write buffer). The fixes: an admitted-bytes cap answered ``busy``, and
no input is read while our output is not. The process tests check the peak RSS (``VmHWM``)
stays under 150 MB and that nothing admitted is lost.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

import pytest

from persona_mind.messages import bridge as b
from persona_mind.messages.host import BeforeAgentStart, Input, ToolCall
from tests.bridge.test_sidecar import Peer

STUB = f"{Path(__file__).with_name('stub_runtime.py')}:StubRuntime"
RSS_LIMIT_KB = 150 * 1000
MIB = 1024 * 1024
linux_only = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="peak RSS is read from /proc (Linux)"
)


def _notify_input(text: str) -> b.Notify:
    return b.Notify(method="event", params=b.raw(b.EventParams(event=Input(text=text))))


# -- in-process: the admitted-bytes cap ---------------------------------------------------------


@pytest.mark.asyncio
async def test_events_past_the_cap_are_refused_busy_and_admitted_ones_all_apply() -> None:
    p = Peer(max_admitted_bytes=20_000)
    await p.ready()
    hang = p.request("event", b.EventParams(event=BeforeAgentStart(prompt="HANG")))
    for i in range(6):
        p.send(_notify_input(f"{i}" * 5_000))  # the worker is stuck: these queue up
    busy = [await p.recv() for _ in range(3)]
    assert [f["code"] for f in busy] == ["busy"] * 3
    assert "refused, not run" in busy[0]["message"]
    assert "event Input" in busy[0]["message"]
    assert p.side.admitted_bytes > 15_000
    p.send(b.Notify(method="cancel", params=b.raw(b.CancelParams(id=hang))))
    assert (await p.recv())["error"]["code"] == "cancelled"
    after = p.request("event", b.EventParams(event=BeforeAgentStart(prompt="after")))
    answer = await p.recv()  # in order: the three admitted Inputs were applied before it
    assert answer["id"] == after
    assert answer["error"] is None
    assert p.side.admitted_bytes == 0  # every admitted byte was released
    await p.side.stop(0)


@pytest.mark.asyncio
async def test_tool_requests_past_the_cap_are_answered_busy() -> None:
    p = Peer(max_admitted_bytes=10_000)
    await p.ready()
    slow = ToolCall(call_id="c", name="stub_slow", arguments={"text": "x" * 6_000})
    first = p.request("tool", slow)
    second = p.request("tool", slow)
    refused = await p.recv()
    assert (refused["id"], refused["error"]["code"]) == (second, "busy")
    p.send(b.Notify(method="cancel", params=b.raw(b.CancelParams(id=first))))
    assert (await p.recv())["error"]["code"] == "cancelled"
    assert p.side.admitted_bytes == 0
    third = p.request("tool", slow)  # room again once the first finished
    p.send(b.Notify(method="cancel", params=b.raw(b.CancelParams(id=third))))
    assert (await p.recv())["id"] == third
    await p.side.stop(0)


@pytest.mark.asyncio
async def test_one_request_larger_than_the_cap_still_runs_when_nothing_else_waits() -> None:
    """The cap bounds what waits together; a single frame is bounded by the frame cap."""
    p = Peer(max_admitted_bytes=100)
    await p.ready()
    ident = p.request("event", b.EventParams(event=BeforeAgentStart(prompt="p" * 1_000)))
    assert (await asyncio.wait_for(p.recv(), 5))["id"] == ident
    await p.side.stop(0)


# -- the real process: peak RSS ----------------------------------------------------------------


def _peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc status")


class _Sidecar:
    """The sidecar process with the stub runtime; stdout/stderr lines collected by threads."""

    def __init__(self, tmp: Path) -> None:
        env = {**os.environ, "PERSONA_MIND_SIDECAR_RUNTIME": STUB}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "persona_mind.bridge.sidecar"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert self.proc.stdin is not None
        self.stdin: IO[bytes] = self.proc.stdin
        self.paused = threading.Event()
        self.stderr: list[str] = []
        self._err_thread = threading.Thread(target=self._read_err, daemon=True)
        self._err_thread.start()
        self.send(b.Hello(protocol=b.PROTOCOL_VERSION, agent_dir=str(tmp)))

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self.stderr.append(line)
            if "input is paused" in line:
                self.paused.set()

    def send(self, frame: b.Frame) -> None:
        self.stdin.write(b.encode_frame(frame))
        self.stdin.flush()

    def frame(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "".join(self.stderr)
        out: dict[str, Any] = json.loads(line)
        return out

    def close(self) -> int:
        self.stdin.close()
        code = self.proc.wait(timeout=60)
        self.release()
        return code

    def release(self) -> None:
        """Close our ends of the pipes (after the process is gone)."""
        if not self.stdin.closed:
            self.stdin.close()
        self._err_thread.join(30)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()


@contextmanager
def _sidecar(tmp: Path) -> Iterator[_Sidecar]:
    side = _Sidecar(tmp)
    try:
        assert side.frame()["type"] == "ready"
        yield side
    finally:
        if side.proc.poll() is None:
            side.proc.kill()
            side.proc.wait()
        with suppress(BrokenPipeError):
            side.release()


@linux_only
def test_rss_stays_bounded_when_8_mib_events_flood_a_stuck_worker(tmp_path: Path) -> None:
    with _sidecar(tmp_path) as side:
        side.send(
            b.Request(
                id=1,
                method="event",
                params=b.raw(b.EventParams(event=(BeforeAgentStart(prompt="HANG")))),
            )
        )
        text = "y" * (8 * MIB)
        for _ in range(30):  # 240 MiB offered; unbounded this held all of it
            side.send(_notify_input(text))
        side.send(b.Request(id=2, method="ping", params=b.raw("after the flood")))
        frames = []
        while (frame := side.frame()).get("id") != 2:
            frames.append(frame)
        peak = _peak_rss_kb(side.proc.pid)
        busy = [f for f in frames if f.get("code") == "busy"]
        assert len(busy) >= 20  # most were refused, each with a clear error frame
        assert all("refused, not run" in f["message"] for f in busy)
        side.send(b.Notify(method="cancel", params=b.raw(b.CancelParams(id=1))))
        assert side.frame()["error"]["code"] == "cancelled"
        assert side.close() == 0
    assert peak < RSS_LIMIT_KB, f"peak RSS {peak} kB"


@linux_only
def test_rss_stays_bounded_when_15_mib_pings_go_unread(tmp_path: Path) -> None:
    payload = b.raw("z" * (15 * MIB))
    count = 24  # 360 MiB of answers; unbounded the write buffer held them all
    with _sidecar(tmp_path) as side:

        def flood() -> None:
            for i in range(count):
                side.send(b.Request(id=100 + i, method="ping", params=payload))

        writer = threading.Thread(target=flood, daemon=True)
        writer.start()
        assert side.paused.wait(60), "".join(side.stderr)  # stopped reading; nothing read yet
        paused_peak = _peak_rss_kb(side.proc.pid)
        ids = []
        for _ in range(count):  # now read: every ping is answered, none lost
            frame = side.frame()
            ids.append(frame["id"])
            assert len(frame["result"]) == 15 * MIB
        writer.join(60)
        peak = _peak_rss_kb(side.proc.pid)
        assert side.close() == 0
    assert ids == [100 + i for i in range(count)]
    assert paused_peak < RSS_LIMIT_KB, f"peak RSS while unread {paused_peak} kB"
    assert peak < RSS_LIMIT_KB, f"peak RSS {peak} kB"
