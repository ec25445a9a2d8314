"""Automatic review by a real Pi worker against the fake OpenAI server (issue 12).

The Scheduler, the Optimizer and the ChildRunner run on real time with a real ``pi``
worker: a save followed by the host settling launches one worker after the 2-second
window; a new prompt cancels it and leaves no process; ``auto off`` then a save launches
nothing (M-OPTIMIZE-AUTO-4, -5, -10, -18, -27).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from tests.e2e.conftest import child_backend
from tests.optimize._helpers import scope_for, seed

from persona_mind.actors import ActorSystem
from persona_mind.actors.child_runner import ChildRunner
from persona_mind.actors.optimizer import spawn_optimizer
from persona_mind.actors.scheduler import spawn_scheduler
from persona_mind.children import group_members
from persona_mind.clock import MonotonicClock
from persona_mind.messages.runner import ListChildren
from persona_mind.messages.scheduler import Activate, AutoSetting, Busy, Saved, Settled
from persona_mind.testing import ManualClock
from persona_mind.testing._fake_openai import FakeOpenAI
from persona_mind.testing._pi import PiInstall

pytestmark = pytest.mark.e2e

LONG = " before every push, and keep the integration suite green for each release"
MODEL = "fake/fake-model"


@pytest.mark.asyncio
async def test_save_and_settle_launch_one_real_worker_and_input_cancels_it(
    pi: PiInstall, tmp_path: Path
) -> None:
    seed(
        tmp_path,
        ManualClock(wall=time.time()),
        [f"lint with ruff{LONG}", f"ruff{LONG}"],
        tier="stm",
    )
    scope = scope_for(tmp_path)
    receipts: list[dict[str, Any]] = []

    async def append(_type: str, data: dict[str, Any]) -> None:
        receipts.append(data)

    with FakeOpenAI([{"delay": 60, "text": '{"operations": []}'}]) as fake:
        pi_backend = child_backend(pi, fake, tmp_path / "pi-agent")
        async with ActorSystem(clock=MonotonicClock()) as system:
            runner = system.spawn(lambda: ChildRunner(pi_backend), name="child-runner")
            opt = spawn_optimizer(system, scope.agent_dir, runner=lambda: runner)
            sched = spawn_scheduler(system, lambda: opt, append)
            sched.tell(Activate(session_id="s", owner="s#1", scope=scope, model=MODEL))
            sched.tell(Saved(tier="stm"))
            settled_at = time.monotonic()
            sched.tell(Settled(input_tokens=10))
            assert await asyncio.to_thread(fake.wait_for_requests, 1, 60)
            assert time.monotonic() - settled_at >= 2.0  # after the coalescing window
            pids = [s.pid for s in await runner.ask(ListChildren())]
            assert len(pids) == 1
            assert pids[0] is not None
            sched.tell(Busy(reason="input"))  # a new user prompt
            for _ in range(600):
                if await runner.ask(ListChildren()) == ():
                    break
                await asyncio.sleep(0.05)
            assert await runner.ask(ListChildren()) == ()
            assert group_members(pids[0]) == []
            for _ in range(100):
                if len(receipts) == 2:
                    break
                await asyncio.sleep(0.05)
            assert [r["phase"] for r in receipts] == ["started", "settled"]
            assert receipts[1]["outcome"] == "interrupted"
            assert len(fake.requests) == 1


@pytest.mark.asyncio
async def test_auto_off_then_a_save_launches_no_real_worker(pi: PiInstall, tmp_path: Path) -> None:
    seed(
        tmp_path,
        ManualClock(wall=time.time()),
        [f"lint with ruff{LONG}", f"ruff{LONG}"],
        tier="stm",
    )
    scope = scope_for(tmp_path)

    async def append(_type: str, _data: dict[str, Any]) -> None:
        return None

    with FakeOpenAI([{"text": '{"operations": []}'}]) as fake:
        pi_backend = child_backend(pi, fake, tmp_path / "pi-agent")
        async with ActorSystem(clock=MonotonicClock()) as system:
            runner = system.spawn(lambda: ChildRunner(pi_backend), name="child-runner")
            opt = spawn_optimizer(system, scope.agent_dir, runner=lambda: runner)
            sched = spawn_scheduler(system, lambda: opt, append)
            sched.tell(Activate(session_id="s", owner="s#1", scope=scope, model=MODEL))
            await sched.ask(AutoSetting(verb="off"))
            sched.tell(Saved(tier="stm"))
            sched.tell(Settled(input_tokens=10))
            await asyncio.sleep(3.0)  # past the 2 s window on real time
            status = "\n".join(await sched.ask(AutoSetting(verb="status")))
            assert "0 launched" in status
            assert await runner.ask(ListChildren()) == ()
            assert fake.requests == []
