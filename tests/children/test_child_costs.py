"""What every child costs, as the ChildRunner counts it (issue 26 scope 5).

Real child processes (the fake pi prints Pi 1.x's ``message_end`` usage, cache tokens and
``cost.total`` included): a running child's usage counts as each of its assistant messages
ends, a finished child's reply replaces it with its total, a failed or cancelled child
keeps what it reported, and the finished totals outlive a runner crash.
"""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest

from persona_mind.actors import Actor, ActorSystem
from persona_mind.actors.child_runner import ChildRunner, run_child
from persona_mind.children import ChildUsage, PiBackend
from persona_mind.clock import MonotonicClock
from persona_mind.errors import ActorStopped, ChildError
from persona_mind.messages.runner import ChildActivity, ChildTotals, ListChildren
from persona_mind.testing import ManualClock, restarted
from persona_mind.testing._scripted import ScriptedModel
from tests.actors.test_restart_contracts import crash_once
from tests.children._helpers import fake_env, request

TURN = {"input": 100, "output": 10, "cacheRead": 5, "cacheWrite": 2, "cost": 0.25}
ONE = ChildUsage(
    input_tokens=100, output_tokens=10, cache_read_tokens=5, cache_write_tokens=2, cost=0.25
)


class Probe(Actor[Any]):
    """Sets ``reported`` once ``count`` usage progress events arrived (no polling)."""

    def __init__(self, reported: asyncio.Event, count: int) -> None:
        self.reported = reported
        self.left = count

    async def receive(self, message: Any) -> object:
        if isinstance(message, ChildActivity) and message.progress.event == "usage":
            self.left -= 1
            if self.left <= 0:
                self.reported.set()
        return None


def _backend(fake_pi: tuple[str, ...], tmp_path: Path, rule: dict[str, Any]) -> PiBackend:
    return PiBackend(
        fake_pi, clock=MonotonicClock(), env=fake_env(tmp_path, {"default": rule}), mode="rpc"
    )


@pytest.mark.asyncio
async def test_usage_is_summed_over_turns_and_counted_while_the_child_runs(
    fake_pi: tuple[str, ...], tmp_path: Path
) -> None:
    backend = _backend(fake_pi, tmp_path, {"usage": TURN, "turns": 3, "hang": True})
    async with ActorSystem(clock=MonotonicClock()) as system:
        runner = system.spawn(lambda: ChildRunner(backend), name="child-runner")
        reported = asyncio.Event()
        probe = system.spawn(lambda: Probe(reported, 2), name="probe")  # both tool turns
        child = asyncio.ensure_future(
            run_child(runner, request(rid="slow", deadline=60), progress_to=probe)
        )
        await asyncio.wait_for(reported.wait(), 30)
        (running,) = await runner.ask(ListChildren())
        assert running.usage == ONE + ONE  # reported while the child still runs
        totals = await runner.ask(ChildTotals())
        assert sum(r.children for r in totals) == 1
        child.cancel()
        with pytest.raises(asyncio.CancelledError):
            await child
        (row,) = await runner.ask(ChildTotals())
        # both earlier turns were reported before the hang: a cancelled child keeps them
        assert row.usage == ONE + ONE
        assert (row.persona, row.kind, row.children) == ("architect", "consult", 1)


@pytest.mark.asyncio
async def test_a_finished_childs_reply_is_its_total_cache_and_cost_included(
    fake_pi: tuple[str, ...], tmp_path: Path
) -> None:
    backend = _backend(fake_pi, tmp_path, {"usage": TURN, "turns": 2, "reply": "done"})
    async with ActorSystem(clock=MonotonicClock()) as system:
        runner = system.spawn(lambda: ChildRunner(backend), name="child-runner")
        reply = await run_child(runner, request(rid="two-turns"))
        assert reply.usage == ONE + ONE
        (row,) = await runner.ask(ChildTotals())
        assert row.usage == reply.usage  # the reply replaced the running figures
        assert await runner.ask(ChildTotals(since=row.generation + 1)) == ()


@pytest.mark.asyncio
async def test_a_failed_child_keeps_what_it_reported(
    fake_pi: tuple[str, ...], tmp_path: Path
) -> None:
    backend = _backend(fake_pi, tmp_path, {"usage": TURN, "turns": 2, "error": "quota"})
    async with ActorSystem(clock=MonotonicClock()) as system:
        runner = system.spawn(lambda: ChildRunner(backend), name="child-runner")
        with pytest.raises(ChildError, match="quota"):
            await run_child(runner, request(rid="fails"))
        (row,) = await runner.ask(ChildTotals())
        assert row.usage.input_tokens == 200  # the tool turn and the failed answer
        assert row.children == 1


@pytest.mark.asyncio
async def test_finished_totals_outlive_a_runner_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = ManualClock()
    model = ScriptedModel(clock).on(reply="ok", usage=ONE)
    crash_once(monkeypatch, ChildRunner, lambda m: isinstance(m, ListChildren))
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        await run_child(runner, request(rid="a"))
        await run_child(runner, request(rid="b", kind="worker"))
        with pytest.raises(ActorStopped):
            await runner.ask(ListChildren())
        await restarted(runner)
        rows = await runner.ask(ChildTotals(), timeout=math.inf)
        assert sorted((r.kind, r.children, r.usage) for r in rows) == [
            ("consult", 1, ONE),
            ("worker", 1, ONE),
        ]


@pytest.mark.asyncio
async def test_a_review_worker_reports_what_every_attempt_spent(tmp_path: Path) -> None:
    """The review batch's report names its workers' tokens (the JSON retry included), and
    the runner counts them as the mind-optimizer's review-worker children."""
    from persona_mind.actors.optimizer import spawn_optimizer  # noqa: PLC0415
    from persona_mind.messages.optimizer import OptimizeReview  # noqa: PLC0415
    from tests.optimize._helpers import scope_for  # noqa: PLC0415
    from tests.optimize.test_review_actor import LONG, _setup  # noqa: PLC0415

    clock = ManualClock()
    ids = _setup(tmp_path, clock)
    answer = {"operations": [{"sources": ids, "text": f"Always run ruff{LONG}"}]}
    model = ScriptedModel(clock).on(phase="worker", reply="not json", usage=ONE, times=1)
    model.on(phase="worker", reply=json.dumps(answer), usage=ONE)
    scope = scope_for(tmp_path)
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        ref = spawn_optimizer(system, scope.agent_dir, runner=lambda: runner)
        msg = OptimizeReview(owner="s", scope=scope, target="stm", model="fake/m")
        report = await ref.ask(msg, timeout=math.inf)
        rows = await runner.ask(ChildTotals())
    assert report.usage == ONE + ONE
    assert "workers 234 tokens, $0.5000" in report.lines()[0]
    assert [(r.persona, r.kind, r.children) for r in rows] == [("mind-optimizer", "worker", 2)]


@pytest.mark.asyncio
async def test_the_librarys_consult_returns_its_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Scope 6: ``Team.consult`` (the library) answers with the child's usage."""
    from persona_mind import Team  # noqa: PLC0415
    from persona_mind.cli import main  # noqa: PLC0415

    agent, repo = tmp_path / "agent", tmp_path / "work" / "app"
    (repo / ".git").mkdir(parents=True)
    assert main(["pack", "install", "software-team", "--agent-dir", str(agent)]) == 0
    assert main(["persona", "default", "set", "software-team", "--agent-dir", str(agent)]) == 0
    capsys.readouterr()
    clock = ManualClock()
    model = ScriptedModel(clock).on(persona="security-reviewer", reply="Rotate it.", usage=ONE)
    async with Team(
        agent_dir=agent,
        cwd=repo,
        persona="architect",
        model="sim/scripted-model",
        child_backend=model,
        clock=clock,
    ) as team:
        answer = await team.consult("security-reviewer", "Is the token safe?")
    assert answer.usage == ONE
