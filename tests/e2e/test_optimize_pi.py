"""Explicit optimize reviews by a real Pi worker against the fake OpenAI server (issue 11).

The Optimizer admits a review, the ChildRunner spawns a real ``pi`` worker with the exact
session model and no tools (the server sees what Pi sent), the strict JSON proposal is
validated and applied through the CAS + receipt path, and undo restores the facts. An owner
change during the review cancels the worker: no report, no change, no process left.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from pathlib import Path

import pytest
from tests.e2e.conftest import child_backend
from tests.optimize._helpers import rows, scope_for, seed

from persona_mind.actors import ActorSystem
from persona_mind.actors.child_runner import ChildRunner
from persona_mind.actors.optimizer import spawn_optimizer
from persona_mind.children import group_members
from persona_mind.clock import MonotonicClock
from persona_mind.errors import StaleGeneration
from persona_mind.messages.optimizer import OptimizeReview, OptimizeUndo
from persona_mind.messages.runner import ListChildren
from persona_mind.testing import ManualClock
from persona_mind.testing._fake_openai import FakeOpenAI
from persona_mind.testing._pi import PiInstall

pytestmark = pytest.mark.e2e

LONG = " before every push, and keep the integration suite green for each release"


@pytest.mark.asyncio
async def test_real_pi_worker_proposal_is_applied_and_undone(pi: PiInstall, tmp_path: Path) -> None:
    clock = ManualClock(wall=time.time())  # seeded "now": the actors run on real time
    a, b = seed(tmp_path, clock, [f"lint with ruff{LONG}", f"run ruff lint{LONG}"], tier="stm")
    before = rows(tmp_path, clock, "stm")
    answer = {"operations": [{"sources": [a.id, b.id], "text": f"Lint with ruff{LONG}."}]}
    scope = scope_for(tmp_path)
    with FakeOpenAI([{"text": json.dumps(answer)}]) as fake:
        pi_backend = child_backend(pi, fake, tmp_path / "pi-agent")
        async with ActorSystem(clock=MonotonicClock()) as system:
            runner = system.spawn(lambda: ChildRunner(pi_backend), name="child-runner")
            ref = spawn_optimizer(system, scope.agent_dir, runner=lambda: runner)
            report = await ref.ask(
                OptimizeReview(owner="s", scope=scope, target="stm", model="fake/fake-model"),
                timeout=math.inf,
            )
            (outcome,) = report.outcomes
            assert outcome.status == "applied", report.lines()
            (body,) = fake.requests
            assert body["model"] == "fake-model"  # the exact session model
            assert fake.tool_names(0) == []  # no tools
            assert a.id in fake.user_texts(0)[-1]  # ids and full records in the input
            live = [f.text for f in rows(tmp_path, clock, "stm") if f.status == "active"]
            assert live == [f"Lint with ruff{LONG}."]
            assert outcome.applied is not None
            await ref.ask(OptimizeUndo(scope=scope, tier="stm", receipt=outcome.applied.receipt))
    assert rows(tmp_path, clock, "stm") == before


@pytest.mark.asyncio
async def test_owner_change_cancels_the_real_worker_and_leaves_no_process(
    pi: PiInstall, tmp_path: Path
) -> None:
    clock = ManualClock(wall=time.time())  # seeded "now": the actors run on real time
    seed(tmp_path, clock, [f"lint with ruff{LONG}", f"run ruff lint{LONG}"], tier="stm")
    before = rows(tmp_path, clock, "stm")
    scope = scope_for(tmp_path)
    with FakeOpenAI([{"delay": 60, "text": '{"operations": []}'}]) as fake:
        pi_backend = child_backend(pi, fake, tmp_path / "pi-agent")
        async with ActorSystem(clock=MonotonicClock()) as system:
            runner = system.spawn(lambda: ChildRunner(pi_backend), name="child-runner")
            ref = spawn_optimizer(system, scope.agent_dir, runner=lambda: runner)
            fut = asyncio.ensure_future(
                ref.ask(
                    OptimizeReview(owner="s", scope=scope, target="stm", model="fake/fake-model"),
                    timeout=math.inf,
                )
            )
            assert await asyncio.to_thread(fake.wait_for_requests, 1, 60)
            pids = [s.pid for s in await runner.ask(ListChildren())]
            assert len(pids) == 1
            system.advance_generation()  # what a /new does to every actor
            with pytest.raises(StaleGeneration):
                await asyncio.wait_for(fut, 60)
            for _ in range(600):
                if await runner.ask(ListChildren()) == ():
                    break
                await asyncio.sleep(0.05)
            assert await runner.ask(ListChildren()) == ()
            assert pids[0] is not None
            assert group_members(pids[0]) == []
    assert rows(tmp_path, clock, "stm") == before
