"""The round-table coordinator on the scripted model (virtual time, no processes)."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import msgspec
import pytest

from persona_mind.actors import ActorRef, ActorSystem
from persona_mind.actors.child_runner import ChildRunner
from persona_mind.actors.roundtable import RoundtableCoordinator
from persona_mind.children import (
    ChildCancelled,
    ChildTeam,
    RoundtableFailed,
    RoundtableProgress,
    RoundtableResult,
    SelectionInvalid,
    render_progress,
)
from persona_mind.messages.runner import AwaitRoundtable, CancelRoundtable, GetRoundtableProgress
from persona_mind.persona.children._roundtable import SECTIONS
from persona_mind.testing import ManualClock, wait_all_tasks_blocked
from persona_mind.testing._scripted import ScriptedModel
from tests.children._helpers import persona, team

SYNTHESIS = "\n".join(f"## {t}\nmoderated {t.lower()}" for t, _ in SECTIONS)
TEAM = team("architect", "critic", "tester")


def selection(*picks: tuple[str, str]) -> str:
    return json.dumps({"specialists": [{"name": n, "reason": r} for n, r in picks]})


def scripted(clock: ManualClock, delay: float = 0.0) -> ScriptedModel:
    model = ScriptedModel(clock)
    model.on(
        phase="select",
        reply=selection(("critic", "find the risks"), ("architect", "propose the design")),
    )
    for name in ("architect", "critic"):
        model.on(persona=name, phase="round1", reply=f"R1-{name}", delay=delay)
        model.on(persona=name, phase="round2", reply=f"R2-{name}", delay=delay)
    model.on(phase="synthesis", reply=SYNTHESIS)
    return model


def start(
    system: ActorSystem, model: ScriptedModel, team_: ChildTeam = TEAM, **kw: Any
) -> ActorRef[Any]:
    runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
    return system.spawn(
        lambda: RoundtableCoordinator(
            runner, team_, "Queue or cron?", "fake/fake-model", run_id="rt1", **kw
        ),
        name="roundtable-rt1",
    )


@pytest.mark.asyncio
async def test_full_workflow_returns_one_synthesis_in_full() -> None:
    """P-ROUNDTABLE-2/-6/-7/-8/-9/-14/-16."""
    clock = ManualClock()
    model = scripted(clock)
    async with ActorSystem(clock=clock) as system:
        coord = start(system, model, injection="OBJECTIVE: v1")
        result = await coord.ask(AwaitRoundtable(), timeout=math.inf)
        progress = await coord.ask(GetRoundtableProgress())
    assert isinstance(result, RoundtableResult)
    assert result.synthesis == SYNTHESIS
    assert result.roster == (("critic", "find the risks"), ("architect", "propose the design"))
    assert result.children == 6
    kinds = [(c.kind, c.persona.name) for c in model.calls]
    assert kinds[0] == ("select", "lead")
    assert sorted(kinds[1:3]) == [("round1", "architect"), ("round1", "critic")]
    assert sorted(kinds[3:5]) == [("round2", "architect"), ("round2", "critic")]
    assert kinds[5] == ("synthesis", "lead")
    by = {(c.kind, c.persona.name): c for c in model.calls}
    # Each reason is that specialist's assignment (P-ROUNDTABLE-6).
    assert "find the risks" in by[("round1", "critic")].prompt
    # Round 2 sees the ordered Round 1 answers: selection order critic, then architect.
    r2 = by[("round2", "architect")].prompt
    assert r2.index("1. critic\nR1-critic") < r2.index("2. architect\nR1-architect")
    synth = by[("synthesis", "lead")].prompt
    assert "R2-critic" in synth
    assert "R2-architect" in synth
    assert "R1-critic" not in synth  # the moderator gets the self-contained finals only
    # Children are legs: frozen persona prompt plus lean injection, exact model.
    assert all(c.system_prompt.endswith("OBJECTIVE: v1") for c in model.calls)
    assert {c.model for c in model.calls} == {"fake/fake-model"}
    assert isinstance(progress, RoundtableProgress)
    assert progress.phase == "done"
    assert progress.children_finished == 6


@pytest.mark.asyncio
async def test_rounds_run_in_parallel_and_progress_is_inspectable_without_opinions() -> None:
    """P-ROUNDTABLE-7/-13/-17/-18."""
    clock = ManualClock()
    model = scripted(clock, delay=10.0)
    async with ActorSystem(clock=clock) as system:
        coord = start(system, model)
        fut = asyncio.ensure_future(coord.ask(AwaitRoundtable(), timeout=math.inf))
        await wait_all_tasks_blocked()  # the run took every step it can without time
        mid: RoundtableProgress = await coord.ask(GetRoundtableProgress())
        assert mid.phase == "independent"
        assert mid.query == "Queue or cron?"
        assert "Round 1" in mid.phase_purpose
        assert mid.next_step.startswith("Round 2")
        assert [(s.name, s.reason, s.state) for s in mid.roster] == [
            ("critic", "find the risks", "running"),
            ("architect", "propose the design", "running"),
        ]
        assert "read-only tools" in mid.context_policy
        clock.advance(10.0)  # both Round 1 children finish in one shared 10 s window
        await wait_all_tasks_blocked()  # the run took every step it can without time
        mid2: RoundtableProgress = await coord.ask(GetRoundtableProgress())
        assert mid2.phase == "revision"
        clock.advance(10.0)
        result = await fut
        final = await coord.ask(GetRoundtableProgress())
    assert result.elapsed == 20.0  # 2 rounds x 10 s: parallel, not 40 s
    shown = msgspec.json.encode(final).decode() + render_progress(final)
    for opinion in ("R1-critic", "R1-architect", "R2-critic", "moderated"):
        assert opinion not in shown


@pytest.mark.asyncio
async def test_phase_failure_cancels_siblings_and_prevents_synthesis() -> None:
    """P-ROUNDTABLE-12."""
    clock = ManualClock()
    model = ScriptedModel(clock)
    model.on(phase="select", reply=selection(("critic", "x"), ("architect", "y"), ("tester", "z")))
    model.on(persona="critic", phase="round1", error="provider down", delay=1.0)
    model.on(phase="round1", hang=True)
    async with ActorSystem(clock=clock) as system:
        coord = start(system, model)
        fut = asyncio.ensure_future(coord.ask(AwaitRoundtable(), timeout=math.inf))
        await wait_all_tasks_blocked()  # the run took every step it can without time
        clock.advance(1.0)
        with pytest.raises(RoundtableFailed, match="round1 failed at critic") as info:
            await fut
        progress = await coord.ask(GetRoundtableProgress())
    assert "provider down" in str(info.value)
    assert sorted(model.cancelled) == ["rt1-round1-architect", "rt1-round1-tester"]
    assert not any(c.kind in ("round2", "synthesis") for c in model.calls)
    assert progress.phase == "failed"
    assert {s.name: s.state for s in progress.roster} == {
        "critic": "failed",
        "architect": "cancelled",
        "tester": "cancelled",
    }


@pytest.mark.asyncio
async def test_selection_failure_is_explicit_and_starts_no_specialist() -> None:
    """P-ROUNDTABLE-10."""
    clock = ManualClock()
    model = ScriptedModel(clock).on(phase="select", reply="Let's ask the critic and tester.")
    async with ActorSystem(clock=clock) as system:
        coord = start(system, model)
        with pytest.raises(SelectionInvalid, match="not one JSON object"):
            await coord.ask(AwaitRoundtable(), timeout=math.inf)
    assert [c.kind for c in model.calls] == ["select"]


@pytest.mark.asyncio
async def test_missing_synthesis_section_is_a_failure_not_a_partial_answer() -> None:
    clock = ManualClock()
    model = scripted(clock)
    model.rules = [r for r in model.rules if r.phase != "synthesis"]
    model.on(phase="synthesis", reply="## Decision\nqueue")
    async with ActorSystem(clock=clock) as system:
        coord = start(system, model)
        with pytest.raises(Exception, match="missing sections: Perspectives"):
            await coord.ask(AwaitRoundtable(), timeout=math.inf)


@pytest.mark.asyncio
async def test_cancel_mid_phase_stops_children_and_gives_no_synthesis() -> None:
    clock = ManualClock()
    model = scripted(clock, delay=50.0)
    async with ActorSystem(clock=clock) as system:
        coord = start(system, model)
        fut = asyncio.ensure_future(coord.ask(AwaitRoundtable(), timeout=math.inf))
        await wait_all_tasks_blocked()  # the run took every step it can without time
        assert await coord.ask(CancelRoundtable(reason="user pressed Esc")) is True
        with pytest.raises(ChildCancelled, match="user pressed Esc"):
            await fut
        progress = await coord.ask(GetRoundtableProgress())
    assert sorted(model.cancelled) == ["rt1-round1-architect", "rt1-round1-critic"]
    assert progress.phase == "cancelled"
    assert not any(c.kind == "synthesis" for c in model.calls)


@pytest.mark.asyncio
async def test_child_deadline_fails_the_phase() -> None:
    """DEC-16: a per-phase deadline; a hanging specialist fails the phase, typed."""
    clock = ManualClock()
    model = ScriptedModel(clock)
    model.on(phase="select", reply=selection(("critic", "x"), ("architect", "y")))
    model.on(persona="critic", phase="round1", hang=True)
    model.on(phase="round1", reply="fine")
    async with ActorSystem(clock=clock) as system:
        coord = start(system, model, phase_deadline=60.0)
        fut = asyncio.ensure_future(coord.ask(AwaitRoundtable(), timeout=math.inf))
        await wait_all_tasks_blocked()  # the run took every step it can without time
        clock.advance(60.0)
        with pytest.raises(RoundtableFailed, match="did not finish within 60s"):
            await fut


@pytest.mark.asyncio
async def test_team_without_a_single_lead_is_refused() -> None:
    clock = ManualClock()
    model = ScriptedModel(clock)
    leaderless = ChildTeam(pack="p", personas=(persona("a"), persona("b")))
    async with ActorSystem(clock=clock) as system:
        coord = start(system, model, leaderless)
        with pytest.raises(SelectionInvalid, match="no single \\[G\\] lead"):
            await coord.ask(AwaitRoundtable(), timeout=math.inf)
    assert model.calls == []
