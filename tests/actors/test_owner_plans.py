"""The Owner holds the Persona chat plans (ARCHITECTURE "The actor system": Owner owns the
plan registries; P-CHAT-PLAN-4..9). The Persona feature registers, takes and drops them by
message; the rules (issued here, same session, single-use, a reply after showing, the
per-session cap) are the Owner's answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from persona_mind.actors import ActorRef, ActorSystem
from persona_mind.actors.owner import OwnerActor
from persona_mind.errors import ActorStopped
from persona_mind.messages.owner import (
    DropPlans,
    IssuePlan,
    ListPlans,
    OwnerMsg,
    SetWorkspace,
    TakePlan,
)
from persona_mind.persona import Plan, PlanRefused
from persona_mind.persona.plans._chat import MAX_PLANS_PER_SESSION, new_plan
from persona_mind.testing import ManualClock, restarted
from tests.actors.test_restart_contracts import crash_once


def plan(session: str = "s1", action: str = "pack.install", shown_at: int = 0) -> Plan:
    return new_plan(session, action, {"pack": "demo"}, "digest", "install demo", shown_at)


async def refused(owner: ActorRef[OwnerMsg], ask: TakePlan) -> str:
    with pytest.raises(PlanRefused) as info:
        await owner.ask(ask)
    return info.value.reason


@pytest.mark.asyncio
async def test_the_owner_enforces_every_plan_rule_and_lives_through_refusals() -> None:
    """P-CHAT-PLAN-5/8/9: unknown, other session, no reply yet (the plan stays), then
    taken once; a refusal is answered to the asker and the Owner goes on."""
    async with ActorSystem(clock=ManualClock()) as system:
        owner = system.spawn(OwnerActor, name="owner")
        shown = await owner.ask(IssuePlan(plan=plan(shown_at=3)))
        pid = shown.plan_id
        assert await refused(owner, TakePlan(plan_id="pp-x", session_id="s1", user_messages=9)) == (
            "unknown"
        )
        assert (
            await refused(owner, TakePlan(plan_id=pid, session_id="s2", user_messages=9))
            == "other-session"
        )
        assert (
            await refused(owner, TakePlan(plan_id=pid, session_id="s1", user_messages=3))
            == "no-reply"
        )
        assert await owner.ask(ListPlans(session_id="s1")) == (shown,)  # still outstanding
        taken = await owner.ask(TakePlan(plan_id=pid, session_id="s1", user_messages=4))
        assert taken == shown
        assert taken.args == {"pack": "demo"}
        assert await refused(owner, TakePlan(plan_id=pid, session_id="s1", user_messages=5)) == (
            "used"
        )
        assert await owner.ask(ListPlans(session_id="s1")) == ()
        assert owner.statistics().restarts == 0


@pytest.mark.asyncio
async def test_the_owner_caps_plans_per_session_and_drops_by_prefix() -> None:
    """The per-session memory bound (oldest first) and `migrate cancel`'s prefix drop."""
    async with ActorSystem(clock=ManualClock()) as system:
        owner = system.spawn(OwnerActor, name="owner")
        first = await owner.ask(IssuePlan(plan=plan()))
        for _ in range(MAX_PLANS_PER_SESSION):
            await owner.ask(IssuePlan(plan=plan()))
        other = await owner.ask(IssuePlan(plan=plan(session="s2", action="migrate.apply")))
        mine = await owner.ask(ListPlans(session_id="s1"))
        assert len(mine) == MAX_PLANS_PER_SESSION
        assert first not in mine  # the oldest was forgotten
        assert (
            await refused(owner, TakePlan(plan_id=first.plan_id, session_id="s1", user_messages=1))
            == "unknown"
        )
        await owner.ask(IssuePlan(plan=plan(action="migrate.apply")))
        assert await owner.ask(DropPlans(session_id="s1", action_prefix="migrate.")) == 1
        # the migration plan had pushed one more install plan out (the cap counts all)
        assert len(await owner.ask(ListPlans(session_id="s1"))) == MAX_PLANS_PER_SESSION - 1
        assert await owner.ask(DropPlans(session_id="s1")) == MAX_PLANS_PER_SESSION - 1
        assert await owner.ask(ListPlans(session_id="s2")) == (other,)  # another session's


@pytest.mark.asyncio
async def test_an_owner_crash_keeps_the_plans_and_the_used_ids(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Restart contract: plans are checkpointed with the Owner's state, so a plan shown
    before the crash is confirmed after it, and a used one stays used."""
    crash_once(monkeypatch, OwnerActor, lambda m: isinstance(m, SetWorkspace) and m.cwd == "/boom")
    async with ActorSystem(clock=ManualClock()) as system:
        owner = system.spawn(OwnerActor, name="owner")
        kept = await owner.ask(IssuePlan(plan=plan()))
        used = await owner.ask(IssuePlan(plan=plan()))
        await owner.ask(TakePlan(plan_id=used.plan_id, session_id="s1", user_messages=1))
        with pytest.raises(ActorStopped):
            await owner.ask(SetWorkspace(cwd="/boom"))
        await restarted(owner)
        assert await owner.ask(ListPlans(session_id="s1")) == (kept,)
        assert (
            await refused(owner, TakePlan(plan_id=used.plan_id, session_id="s1", user_messages=2))
            == "used"
        )
        taken = await owner.ask(TakePlan(plan_id=kept.plan_id, session_id="s1", user_messages=1))
        assert taken == kept


@pytest.mark.asyncio
async def test_a_chat_plan_lives_in_the_owner_not_the_companion(tmp_path: Path) -> None:
    """Through the real runtime: the plan the tool shows is registered with the Owner,
    the confirm takes it there, and the Persona feature keeps no plans of its own."""
    from persona_mind.testing._simhost import SimHost  # noqa: PLC0415

    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock()) as host:
        await host.start()
        await host.command("/persona pack install software-team")
        shown = await host.call_tool(
            "persona_pack", {"action": "team", "op": "select", "pack": "software-team"}
        )
        assert not shown.is_error, shown.text
        plan_id = (shown.details or {})["planId"]
        owner = host.runtime.owner_ref
        sid = host.session.session_id
        held = await owner.ask(ListPlans(session_id=sid))
        assert [p.plan_id for p in held] == [plan_id]
        assert held[0].action == "team.select"
        # a Persona feature built from the runtime's ports has no plan desk of its own
        from persona_mind.features import PersonaFeature  # noqa: PLC0415

        feature = PersonaFeature(host.runtime.tree.ports, cast(Any, None))
        with pytest.raises(Exception, match="held by the Owner"):
            feature.service.plans.drop(sid)
        await host.turn("yes, switch the team")
        confirmed = await host.call_tool("persona_pack", {"action": "confirm", "planId": plan_id})
        assert not confirmed.is_error, confirmed.text
        assert await owner.ask(ListPlans(session_id=sid)) == ()
        again = await host.call_tool("persona_pack", {"action": "confirm", "planId": plan_id})
        assert again.is_error
        assert "single-use" in again.text
