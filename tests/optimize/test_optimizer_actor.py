"""The Optimizer actor: plans in its mailbox, writes on its IO thread (M-OPTIMIZE-MANUAL-*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.optimizer import spawn_optimizer
from persona_mind.messages.optimizer import (
    DiscardPlans,
    OptimizeApply,
    OptimizeHistoryList,
    OptimizeInspect,
    OptimizeStage,
    OptimizeUndo,
)
from persona_mind.mind._errors import LimitExceeded, NotFound
from persona_mind.mind.optimize._errors import PlanExpired
from persona_mind.mind.optimize._plans import MAX_PLANS_PER_OWNER, PLAN_LIFETIME
from persona_mind.testing import ManualClock
from tests.optimize._helpers import rows, scope_for, seed


@pytest.mark.asyncio
async def test_inspect_stage_apply_history_undo_through_the_actor_M_OPTIMIZE_MANUAL_1(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    a, b, _c = seed(tmp_path, clock, ["run ruff before commit", "run ruff before each commit", "x"])
    original = rows(tmp_path, clock)
    scope = scope_for(tmp_path)
    async with ActorSystem(clock=clock) as system:
        ref = spawn_optimizer(system, tmp_path / "agent")
        page = await ref.ask(OptimizeInspect(scope=scope, tier="project"))
        assert page.matched == 3
        assert [(p.a, p.b) for p in page.pairs] in ([(a.id, b.id)], [(b.id, a.id)])
        plan = await ref.ask(
            OptimizeStage(
                owner="s1",
                scope=scope,
                tier="project",
                operations=[{"sources": [a.id, b.id], "text": "Run ruff before every commit"}],
            )
        )
        assert plan.fingerprint == page.fingerprint
        assert rows(tmp_path, clock) == original  # staging writes nothing
        done = await ref.ask(OptimizeApply(owner="s1", scope=scope, plan=plan.id))
        assert done.outcome == "applied"
        with pytest.raises(NotFound):  # never twice
            await ref.ask(OptimizeApply(owner="s1", scope=scope, plan=plan.id))
        history = await ref.ask(OptimizeHistoryList(scope=scope, tier="project"))
        assert history[0]["receipt"] == done.receipt
        assert history[0]["after"] == ["Run ruff before every commit"]
        undone = await ref.ask(OptimizeUndo(scope=scope, tier="project", receipt=done.receipt))
        assert undone.kind == "undo"
        assert rows(tmp_path, clock) == original


@pytest.mark.asyncio
async def test_plans_are_bounded_expire_and_are_discarded_M_OPTIMIZE_MANUAL_33_34_39(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    facts = seed(tmp_path, clock, [f"rule {i}" for i in range(MAX_PLANS_PER_OWNER + 1)])
    scope = scope_for(tmp_path)

    def stage(i: int, owner: str = "s1") -> OptimizeStage:
        ops = [{"sources": [facts[i].id], "text": f"better rule {i}"}]
        return OptimizeStage(owner=owner, scope=scope, tier="project", operations=ops)

    async with ActorSystem(clock=clock) as system:
        ref = spawn_optimizer(system, tmp_path / "agent")
        plans = [await ref.ask(stage(i)) for i in range(MAX_PLANS_PER_OWNER)]
        with pytest.raises(LimitExceeded):
            await ref.ask(stage(MAX_PLANS_PER_OWNER))
        other = await ref.ask(stage(0, owner="s2"))
        clock.advance(PLAN_LIFETIME - 1)
        await ref.ask(OptimizeApply(owner="s1", scope=scope, plan=plans[0].id))
        clock.advance(1)
        with pytest.raises(PlanExpired):
            await ref.ask(OptimizeApply(owner="s1", scope=scope, plan=plans[1].id))
        fresh = await ref.ask(stage(2))
        ref.tell(DiscardPlans(owner="s1"))
        with pytest.raises(NotFound):
            await ref.ask(OptimizeApply(owner="s1", scope=scope, plan=fresh.id))
        with pytest.raises(PlanExpired):  # s2's plan also outlived its ten minutes
            await ref.ask(OptimizeApply(owner="s2", scope=scope, plan=other.id))


@pytest.mark.asyncio
async def test_receipts_survive_an_optimizer_restart_plans_do_not_M_OPTIMIZE_HISTORY_11(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    (a,) = seed(tmp_path, clock, ["rule"])
    scope = scope_for(tmp_path)
    ops = [{"sources": [a.id], "text": "better rule"}]
    async with ActorSystem(clock=clock) as system:
        ref = spawn_optimizer(system, tmp_path / "agent")
        plan = await ref.ask(OptimizeStage(owner="s", scope=scope, tier="project", operations=ops))
        done = await ref.ask(OptimizeApply(owner="s", scope=scope, plan=plan.id))
        kept = await ref.ask(
            OptimizeStage(
                owner="s",
                scope=scope,
                tier="project",
                operations=[{"sources": [plan.after[0].id], "text": "best rule"}],
            )
        )
    async with ActorSystem(clock=clock) as system:  # a new process / incarnation
        ref = spawn_optimizer(system, tmp_path / "agent")
        with pytest.raises(NotFound):
            await ref.ask(OptimizeApply(owner="s", scope=scope, plan=kept.id))
        history = await ref.ask(OptimizeHistoryList(scope=scope, tier="project"))
        assert [h["receipt"] for h in history] == [done.receipt]
        await ref.ask(OptimizeUndo(scope=scope, tier="project", receipt=done.receipt))
        assert [f.id for f in rows(tmp_path, clock)] == [a.id]
