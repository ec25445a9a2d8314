"""Escalation past the root ends the sidecar non-zero with one clear stderr line (issue 10).

``ActorSystem.wait_failed()`` is raced against serving: a runtime whose root supervisor gave
up must not sit behind a live sidecar. The extension restarts a sidecar that exits; the
real-Pi half of this is ``tests/e2e/test_bridge_faults.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from persona_mind.actors import RestartPolicy
from persona_mind.bridge._runtime import RuntimeFactory
from persona_mind.bridge.sidecar import EXIT_ESCALATED, Sidecar
from persona_mind.messages import bridge as b
from persona_mind.messages.host import ToolCall
from persona_mind.runtime import Runtime
from tests.bridge._null_host import NullHost
from tests.bridge.stub_runtime import Crash, Crasher
from tests.bridge.test_sidecar import Peer

STUB = f"{Path(__file__).with_name('stub_runtime.py')}:StubRuntime"
ESCALATE = ToolCall(call_id="c", name="stub_boom", arguments={"text": "ESCALATE"})


@pytest.mark.asyncio
async def test_root_escalation_stops_the_sidecar_with_exit_3_and_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    p = Peer()
    assert (await p.ready())["type"] == "ready"
    ident = p.request("tool", ESCALATE)
    assert await asyncio.wait_for(p.side.done, 5) == EXIT_ESCALATED
    answer = await p.recv()
    assert (answer["id"], answer["error"]["code"]) == (ident, "cancelled")  # never left hanging
    assert p.side.state == "stopped"
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "the runtime gave up" in lines[0]
    assert "'crasher' crashed more than its restart intensity allows" in lines[0]
    assert f"exiting with code {EXIT_ESCALATED}" in lines[0]


@pytest.mark.asyncio
async def test_a_clean_stop_is_not_mistaken_for_an_escalation() -> None:
    p = Peer()
    await p.ready()
    await p.side.stop(0)
    assert p.side.done.result() == 0


@pytest.mark.asyncio
async def test_the_real_runtime_escalating_ends_the_sidecar(tmp_path: Path) -> None:
    """The product ``Runtime`` exposes its actor system; its root giving up is watched too."""
    out: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    factory = cast(RuntimeFactory, Runtime)
    side = Sidecar(lambda line: out.put_nowait(json.loads(line)), lambda: factory)
    side.feed(b.encode_frame(b.Hello(protocol=b.PROTOCOL_VERSION, agent_dir=str(tmp_path))))
    while (frame := await asyncio.wait_for(out.get(), 30))["type"] == "request":
        result: object = {"entries": []} if frame["method"] == "branch_entries" else None
        side.feed(b.encode_frame(b.Response(id=frame["id"], result=b.raw(result))))
    assert frame["type"] == "ready", frame
    runtime = cast(Runtime, side.runtime)
    ref = runtime.system.spawn(Crasher, name="crasher", restart=RestartPolicy(max_restarts=0))
    ref.tell(Crash(why="test"))
    assert await asyncio.wait_for(side.done, 30) == EXIT_ESCALATED
    assert side.state == "stopped"


def test_the_sidecar_process_exits_3_while_its_stdin_is_still_open(tmp_path: Path) -> None:
    env = {**os.environ, "PERSONA_MIND_SIDECAR_RUNTIME": STUB}
    proc = subprocess.Popen(
        [sys.executable, "-m", "persona_mind.bridge.sidecar"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    hello = b.Hello(protocol=b.PROTOCOL_VERSION, agent_dir=str(tmp_path))
    proc.stdin.write(b.encode_frame(hello))
    proc.stdin.flush()
    try:
        frames = [json.loads(proc.stdout.readline())]  # ready: requests before it are refused
        proc.stdin.write(b.encode_frame(b.Request(id=1, method="tool", params=b.raw(ESCALATE))))
        proc.stdin.flush()  # stdin stays open: only the escalation can end the process
        code = proc.wait(timeout=60)
        frames += [json.loads(line) for line in proc.stdout.read().splitlines()]
        err = proc.stderr.read().decode()
    finally:
        proc.stdin.close()
        proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert code == EXIT_ESCALATED, err
    assert [f["type"] for f in frames] == ["ready", "response"]
    assert frames[1]["error"]["code"] == "cancelled"
    assert err.count("the runtime gave up") == 1, err
    assert "Traceback" not in err


def test_a_cli_command_whose_runtime_gives_up_prints_one_line_and_exits_non_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI half of issue 10: ``Escalated`` leaves ``async with Runtime`` as a typed error,
    and ``persona-mind`` prints it as one line (exit 2), never a traceback. The demo command
    (the CLI's Runtime user) runs a body that makes the real runtime's root give up."""
    from persona_mind import cli  # noqa: PLC0415 - the CLI under test
    from persona_mind.cli import _demo  # noqa: PLC0415 - the CLI under test

    async def escalating_demo(
        agent_dir: Path, trace: Path | None, say: Any, *, kept: bool = False
    ) -> int:
        async with Runtime(NullHost(), agent_dir=agent_dir) as rt:
            ref = rt.system.spawn(Crasher, name="crasher", restart=RestartPolicy(max_restarts=0))
            ref.tell(Crash(why="cli"))
            await rt.system.wait_failed()
        return 0  # never reached: leaving the runtime raises Escalated

    monkeypatch.setattr(_demo, "run_demo", escalating_demo)
    code = cli.main(["demo", "--agent-dir", str(tmp_path / "agent")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("persona-mind: supervisor 'root' gave up: 'crasher' crashed")
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
