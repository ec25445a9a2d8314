"""Issue 24 low items of the sidecar: a bare EOF applies every event queued before it;
SIGTERM and SIGINT shut down cleanly through the ``session_shutdown`` path and exit 0; an
error frame for an unknown ``type`` carries the readable ``id``; ids past 2^53 - 1 are
refused, never echoed (JavaScript would read them rounded, as another request's id).

Each test fails on the issue's main: EOF kept 2 of 5 queued inputs, a signal killed the
process without stopping the runtime, the unknown-type error answered ``id: null``, and a
request with id 2^53 + 1 was answered with that id.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from persona_mind.messages import bridge as b

STUB = f"{Path(__file__).with_name('stub_runtime.py')}:StubRuntime"
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and pipes")


class Sidecar:
    """A sidecar process (the stub runtime unless attached to another), frame by frame."""

    def __init__(
        self, log: Path | None = None, proc: subprocess.Popen[bytes] | None = None
    ) -> None:
        env = {**os.environ, "PERSONA_MIND_SIDECAR_RUNTIME": STUB, "STUB_RUNTIME_LOG": str(log)}
        self.proc = proc or subprocess.Popen(
            [sys.executable, "-m", "persona_mind.bridge.sidecar"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        if proc is None:
            self.send({"type": "hello", "protocol": 1})
            assert self.read()["type"] == "ready"

    @classmethod
    def attach(cls, proc: subprocess.Popen[bytes], hello: dict[str, Any]) -> Sidecar:
        side = cls(proc=proc)
        side.send(hello)
        while side.read()["type"] != "ready":
            pass
        return side

    def serve_until(self, ident: int) -> None:
        """Answer the runtime's host requests (as Pi would) until our request ``ident``."""
        while True:
            frame = self.read()
            if frame["type"] == "response" and frame["id"] == ident:
                return
            if frame["type"] == "request":
                entries: dict[str, list[Any]] = {"entries": []}
                result = entries if frame["method"] == "branch_entries" else None
                self.send({"type": "response", "id": frame["id"], "result": result})

    def send(self, frame: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(frame).encode() + b"\n")
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "the sidecar closed its output"
        frame: dict[str, Any] = json.loads(line)
        return frame

    def finish(self) -> tuple[int, list[dict[str, Any]], str]:
        if self.proc.stdin is not None and self.proc.stdin.closed:
            self.proc.stdin = None  # communicate() would flush it
        out, err = self.proc.communicate(timeout=60)
        frames = [json.loads(line) for line in out.splitlines()]
        return self.proc.returncode, frames, err.decode()


def _rows(log: Path) -> list[tuple[str, dict[str, Any]]]:
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    return [(r["kind"], r["value"] if isinstance(r["value"], dict) else {}) for r in rows]


def _events(log: Path) -> list[str]:
    return [value.get("text", kind) for kind, value in _rows(log)]


def _inputs(n: int) -> list[dict[str, Any]]:
    return [
        {
            "type": "notify",
            "method": "event",
            "params": {"event": {"type": "Input", "text": f"remember: input {i}"}},
        }
        for i in range(n)
    ]


def test_a_bare_eof_applies_every_capture_input_queued_before_it(tmp_path: Path) -> None:
    """The real runtime: five capture inputs, then EOF in the same write; all five facts are
    in the store when the process has exited 0 (main kept 1-2 of them)."""
    agent, project = tmp_path / "agent", tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "PERSONA_MIND_SIDECAR_RUNTIME"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "persona_mind.bridge.sidecar"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**env, "PI_CODING_AGENT_DIR": str(agent)},
    )
    side = Sidecar.attach(proc, {"type": "hello", "protocol": 1, "agent_dir": str(agent)})
    start = {"type": "SessionStart", "reason": "startup", "session_id": "s1", "cwd": str(project)}
    side.send({"type": "request", "id": 1, "method": "event", "params": {"event": start}})
    side.serve_until(1)
    texts = [f"remember: we always run check number {i} before pushing" for i in range(5)]
    lines = [
        {"type": "notify", "method": "event", "params": {"event": {"type": "Input", "text": t}}}
        for t in texts
    ]
    assert proc.stdin is not None
    proc.stdin.write(b"".join(json.dumps(f).encode() + b"\n" for f in lines))
    proc.stdin.close()  # EOF right behind them
    code, _frames, err = side.finish()
    assert code == 0, err
    stored = [
        e["text"]
        for f in (agent / "persona-mind" / "memory").rglob("*.json")
        if ".optimize-history" not in f.name
        for e in json.loads(f.read_text())["entries"]
    ]
    assert sorted(stored) == sorted(t.removeprefix("remember: ") for t in texts), err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_takes_the_session_shutdown_path_and_exits_zero(
    tmp_path: Path, sig: signal.Signals
) -> None:
    log = tmp_path / "log.jsonl"
    side = Sidecar(log)
    for frame in _inputs(3):
        side.send(frame)
    side.send({"type": "request", "id": 1, "method": "ping", "params": "p"})
    assert side.read()["id"] == 1  # the inputs before the ping were admitted
    side.proc.send_signal(sig)
    side.proc.wait(timeout=60)  # stdin stays open: no EOF races the signal
    code, _frames, err = side.finish()
    assert code == 0, err
    assert f"{sig.name}: shutting down" in err
    kinds = [(kind, value.get("type")) for kind, value in _rows(log)]
    assert kinds[-2:] == [("event", "SessionShutdown"), ("exit", None)]
    assert [e for e in _events(log) if e.startswith("remember:")] == [
        f"remember: input {i}" for i in range(3)
    ]


def test_an_unknown_frame_type_is_answered_with_its_readable_id() -> None:
    bad = b.decode_frame(b'{"type":"reqest","id":41,"method":"ping"}')
    assert isinstance(bad, b.BadFrame)
    assert bad.reply.code == "unknown_type"
    assert bad.reply.id == 41


@pytest.mark.parametrize("ident", [2**53, 2**53 + 1, 2**63, -(2**53)])
def test_ids_past_two_to_the_53_are_refused_not_echoed(ident: int) -> None:
    for kind in ("request", "response", "reqest"):
        line = json.dumps({"type": kind, "id": ident, "method": "ping"}).encode()
        bad = b.decode_frame(line)
        assert isinstance(bad, b.BadFrame), kind
        assert bad.reply.id is None
        assert bad.answers is None
        assert str(ident) not in bad.reply.message
    largest = b.decode_frame(
        json.dumps({"type": "request", "id": 2**53 - 1, "method": "p"}).encode()
    )
    assert isinstance(largest, b.Request)


def test_the_sidecar_refuses_a_huge_id_without_answering_it(tmp_path: Path) -> None:
    side = Sidecar(tmp_path / "log.jsonl")
    side.send({"type": "request", "id": 2**53 + 1, "method": "ping", "params": "x"})
    frame = side.read()
    assert (frame["type"], frame["id"]) == ("error", None)
    assert side.proc.stdin is not None
    side.proc.stdin.close()
    code, frames, _err = side.finish()
    assert code == 0
    assert all(f.get("id") != 2**53 + 1 and f.get("id") != 2**53 + 2 for f in frames)
