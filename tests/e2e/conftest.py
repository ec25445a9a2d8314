"""End-to-end fixtures: the real Pi (Node 22 + Pi 1.x from scripts/install-pi.sh), the fake
OpenAI server, our extension, and a small RPC client.

Tests skip (reason: run scripts/install-pi.sh) when Pi is not installed, and FAIL under
``CI=true`` (CI installs Pi, so a skip there would hide a broken bridge).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from persona_mind.children import CancelLadder, PiBackend
from persona_mind.clock import MonotonicClock
from persona_mind.testing._fake_openai import FakeOpenAI, pi_agent_env
from persona_mind.testing._pi import PiInstall, pi_required, require_pi

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "pi-extension"
STUB_RUNTIME = f"{REPO / 'tests' / 'bridge' / 'stub_runtime.py'}:StubRuntime"
NAV_EXTENSION = REPO / "tests" / "bridge" / "pi_nav_ext.ts"
WAIT = 60.0  # generous: CI machines are slow; every wait ends early on success


@pytest.fixture(scope="session")
def pi() -> PiInstall:
    return require_pi()


def child_backend(pi: PiInstall, fake: FakeOpenAI, agent_dir: Path) -> PiBackend:
    """A real `pi` child backend in RPC mode on the fake model server (workers, consults)."""
    return PiBackend(
        pi.argv,
        clock=MonotonicClock(),
        mode="rpc",
        base_env=pi_agent_env(agent_dir, fake.base_url),
        ladder=CancelLadder(abort_grace=5, term_grace=5, kill_grace=10),
    )


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@dataclass
class PiEnv:
    """One isolated Pi home: agent dir, session dir, env, and the logs our parts write."""

    pi: PiInstall
    fake: FakeOpenAI
    root: Path
    env: dict[str, str]
    extensions: list[Path] = field(default_factory=lambda: [EXTENSION])

    @property
    def cwd(self) -> Path:
        return self.root / "work"

    @property
    def session_dir(self) -> Path:
        return self.root / "sessions"

    @property
    def bridge_log(self) -> Path:
        return Path(self.env["PERSONA_MIND_BRIDGE_LOG"])

    @property
    def stub_log(self) -> Path:
        return Path(self.env["STUB_RUNTIME_LOG"])

    def stub_records(self, kind: str | None = None) -> list[dict[str, Any]]:
        if not self.stub_log.exists():
            return []
        rows = [json.loads(x) for x in self.stub_log.read_text().splitlines() if x.strip()]
        return [r for r in rows if kind is None or r["kind"] == kind]

    def argv(self, *extra: str, session: bool = False) -> list[str]:
        args = [*self.pi.argv, "-ne"]
        for ext in self.extensions:
            args += ["-e", str(ext)]
        args += ["--session-dir", str(self.session_dir)] if session else ["--no-session"]
        return [*args, *extra]

    def run_print(
        self, prompt: str, *extra: str, session: bool = False
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*extra, "-p", prompt, session=session),
            env=self.env,
            cwd=self.cwd,
            capture_output=True,
            text=True,
            timeout=WAIT * 2,
            check=False,
        )

    def rpc(self, *extra: str, session: bool = False) -> RpcPi:
        return RpcPi(self.argv("--mode", "rpc", *extra, session=session), self.env, self.cwd)


@pytest.fixture
def pienv(pi: PiInstall, fake: FakeOpenAI, tmp_path: Path) -> PiEnv:
    env = pi_agent_env(tmp_path / "agent", fake.base_url, extra_models=["fake-model-2"])
    env.update(
        PERSONA_MIND_PYTHON=sys.executable,
        PERSONA_MIND_SIDECAR_RUNTIME=STUB_RUNTIME,
        PERSONA_MIND_BRIDGE_LOG=str(tmp_path / "bridge.log"),
        STUB_RUNTIME_LOG=str(tmp_path / "stub.log"),
        PERSONA_MIND_RESTART_BASE_MS="100",
        PATH=f"{pi.bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    (tmp_path / "work").mkdir()
    return PiEnv(pi=pi, fake=fake, root=tmp_path, env=env)


class RpcPi:
    """Pi in ``--mode rpc``: JSON lines both ways; a reader thread queues stdout records."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            argv,
            env=env,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.records: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self._claimed: set[int] = set()
        self.stderr = b""
        self._next = 0
        self._threads = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._read_err, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:  # bytes: splits on LF only
            try:
                self.records.put(json.loads(line))
            except ValueError:
                self.records.put({"type": "_unparsable", "line": line.decode(errors="replace")})
        self.records.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send(self, command: dict[str, Any]) -> str:
        self._next += 1
        ident = f"t{self._next}"
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps({**command, "id": ident}) + "\n").encode())
        self.proc.stdin.flush()
        return ident

    def wait_for(self, pred: Any, timeout: float = WAIT) -> dict[str, Any]:
        """The first unclaimed record (already read, or new) satisfying ``pred``; claims it."""
        for i, rec in enumerate(self.seen):
            if i not in self._claimed and pred(rec):
                self._claimed.add(i)
                return rec
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(
                    f"timed out; last records: {self.seen[-8:]}; stderr: {self.stderr[-2000:]!r}"
                )
            try:
                item = self.records.get(timeout=remaining)
            except queue.Empty:
                continue
            if item is None:
                raise AssertionError(
                    f"pi exited ({self.proc.poll()}); last: {self.seen[-8:]}; "
                    f"stderr: {self.stderr[-2000:]!r}"
                )
            self.seen.append(item)
            if pred(item):
                self._claimed.add(len(self.seen) - 1)
                return item

    def call(self, command: dict[str, Any], timeout: float = WAIT) -> dict[str, Any]:
        ident = self.send(command)
        resp = self.wait_for(
            lambda r: r.get("type") == "response" and r.get("id") == ident, timeout
        )
        assert resp.get("success"), resp
        return resp

    def prompt(self, text: str, timeout: float = WAIT) -> dict[str, Any]:
        """Send a prompt and wait until Pi settles; returns the agent_settled record."""
        self.call({"type": "prompt", "message": text}, timeout)
        return self.wait_for(lambda r: r.get("type") == "agent_settled", timeout)

    def notifications(self) -> list[str]:
        return [
            str(r.get("message"))
            for r in self.seen
            if r.get("type") == "extension_ui_request" and r.get("method") == "notify"
        ]

    def wait_notify(self, needle: str, timeout: float = WAIT) -> dict[str, Any]:
        return self.wait_for(
            lambda r: (
                r.get("type") == "extension_ui_request"
                and r.get("method") == "notify"
                and needle in str(r.get("message"))
            ),
            timeout,
        )

    def close(self) -> int:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            for thread in self._threads:
                thread.join(timeout=5)
            for pipe in (self.proc.stdout, self.proc.stderr):
                if pipe is not None:
                    pipe.close()

    def __enter__(self) -> RpcPi:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@pytest.fixture
def tmux() -> Iterator[list[str]]:
    """A private tmux server (``tmux -L <unique>``) for a test that runs Pi's TUI; killed
    after the test. Without tmux the test is skipped, and fails under ``CI=true``."""
    if shutil.which("tmux") is None:
        reason = "tmux is not installed (apt-get install -y tmux)"
        if pi_required():
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    base = ["tmux", "-L", f"pm-e2e-{uuid.uuid4().hex[:8]}"]
    yield base
    subprocess.run([*base, "kill-server"], capture_output=True, check=False)


def capture_pane(tmux: list[str], *, scrollback: bool = False) -> str:
    """What the ``pi`` tmux pane shows (with ``scrollback``: joined lines and 400 lines of
    history, for output taller than the screen)."""
    history = ["-J", "-S", "-400"] if scrollback else []
    return subprocess.run(
        [*tmux, "capture-pane", "-p", *history, "-t", "pi"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout


def wait_pane(
    tmux: list[str], *needles: str, timeout: float = WAIT, scrollback: bool = False
) -> str:
    """The pane once every needle is on it. Polled: Pi's TUI runs in another process and
    its screen has no event to wait on."""
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = capture_pane(tmux, scrollback=scrollback)
        if all(n in text for n in needles):
            return text
        time.sleep(0.05)
    missing = [n for n in needles if n not in text]
    raise AssertionError(f"{missing!r} never appeared; pane:\n{text[-4000:]}")


@pytest.fixture
def real(pienv: PiEnv) -> PiEnv:
    """The Pi environment with the sidecar running the real Runtime (Mind + Persona), not
    the stub runtime the bridge tests use."""
    del pienv.env["PERSONA_MIND_SIDECAR_RUNTIME"]
    return pienv


def use_architect(rpc: RpcPi) -> None:
    """Install the official software team, select it and make its architect active."""
    for command in (
        "/persona pack install software-team",
        "/persona team select official/software-team",
        "/persona use architect",
    ):
        rpc.call({"type": "prompt", "message": command})
