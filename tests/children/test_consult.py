"""persona_consult: refusals before launch, leaf children, parallel siblings, provenance."""

from __future__ import annotations

import asyncio

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.child_runner import ChildRunner
from persona_mind.children import (
    ChildModelError,
    ConsultResult,
    PersonaNotInTeam,
    RequesterNotActive,
    SelfConsult,
    consult,
    consult_many,
    render_consult,
)
from persona_mind.persona.children._consult import resolve_consultant
from persona_mind.testing import ManualClock, wait_all_tasks_blocked
from persona_mind.testing._scripted import ScriptedModel
from tests.children._helpers import team

TEAM = team("architect", "critic", "tester")


def test_requester_must_be_the_active_persona() -> None:
    """P-CONSULT-3."""
    with pytest.raises(RequesterNotActive, match="not the active persona"):
        resolve_consultant(TEAM, requester="architect", active="critic", consultant="tester")
    with pytest.raises(RequesterNotActive):
        resolve_consultant(TEAM, requester="architect", active=None, consultant="tester")


def test_no_self_consult_by_name_or_qualified_id() -> None:
    """P-CONSULT-4."""
    with pytest.raises(SelfConsult):
        resolve_consultant(TEAM, requester="architect", active="architect", consultant="architect")
    with pytest.raises(SelfConsult):
        resolve_consultant(
            TEAM, requester="architect", active="architect", consultant="custom/editorial/architect"
        )


@pytest.mark.parametrize("name", ["ghost", "official/other-pack/architect", ""])
def test_only_personas_of_this_sessions_team(name: str) -> None:
    """P-CONSULT-9/-10: unknown or foreign personas are refused, naming the roster."""
    with pytest.raises(PersonaNotInTeam, match="choose one of: lead, architect, critic, tester"):
        resolve_consultant(TEAM, requester="architect", active="architect", consultant=name)


def test_the_lead_may_be_consulted_and_may_consult() -> None:
    asking, target = resolve_consultant(TEAM, requester="lead", active="lead", consultant="critic")
    assert (asking.name, target.name) == ("lead", "critic")


@pytest.mark.asyncio
async def test_consult_runs_one_leaf_child_and_returns_provenance() -> None:
    """P-CONSULT-2/-6/-8/-11: the consultant's own prompt, a leaf instruction, provenance."""
    clock = ManualClock()
    model = ScriptedModel(clock).on(persona="critic", reply="Beware of retries.")
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        result = await consult(
            runner,
            TEAM,
            requester="architect",
            active="architect",
            consultant="critic",
            question="Is the queue safe?",
            model="fake/fake-model",
            injection="OBJECTIVE: ship v1",
        )
    assert isinstance(result, ConsultResult)
    assert (result.requester, result.consultant, result.answer) == (
        "architect",
        "critic",
        "Beware of retries.",
    )
    assert result.consultant_id == "custom/editorial/critic"
    (call,) = model.calls
    assert call.kind == "consult"
    assert call.persona.system_prompt == "You are CRITIC-PERSONA."
    assert call.system_prompt.endswith("OBJECTIVE: ship v1")
    assert "leaf consultant" in call.prompt
    assert "Is the queue safe?" in call.prompt
    assert call.model == "fake/fake-model"
    text = render_consult(result)
    assert text.startswith("[consult custom/editorial/critic for architect")
    assert "Beware of retries." in text


@pytest.mark.asyncio
async def test_refused_consult_starts_no_child() -> None:
    clock = ManualClock()
    model = ScriptedModel(clock)
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        with pytest.raises(SelfConsult):
            await consult(
                runner,
                TEAM,
                requester="critic",
                active="critic",
                consultant="critic",
                question="?",
                model="m",
            )
    assert model.calls == []


@pytest.mark.asyncio
async def test_sibling_consults_run_in_parallel_and_fail_independently() -> None:
    """P-CONSULT-5: siblings overlap in time; one failure does not cancel the others."""
    clock = ManualClock()
    model = (
        ScriptedModel(clock)
        .on(persona="critic", reply="critic says", delay=10.0)
        .on(persona="tester", error="provider down", delay=5.0)
        .on(persona="architect", reply="architect says", delay=10.0)
    )
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        task = asyncio.ensure_future(
            consult_many(
                runner,
                TEAM,
                requester="lead",
                active="lead",
                model="m",
                asks=[("critic", "q1"), ("tester", "q2"), ("architect", "q3")],
            )
        )
        await wait_all_tasks_blocked()
        assert len(model.calls) == 3  # all three started before any time passed
        clock.advance(10.0)  # one shared 10 s window: they ran side by side
        results = await task
    assert isinstance(results[0], ConsultResult)
    assert results[0].answer == "critic says"
    assert isinstance(results[1], ChildModelError)
    assert isinstance(results[2], ConsultResult)


@pytest.mark.asyncio
async def test_a_batch_with_one_bad_name_is_refused_before_any_launch() -> None:
    clock = ManualClock()
    model = ScriptedModel(clock)
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        with pytest.raises(PersonaNotInTeam):
            await consult_many(
                runner,
                TEAM,
                requester="lead",
                active="lead",
                model="m",
                asks=[("critic", "q"), ("ghost", "q")],
            )
    assert model.calls == []
