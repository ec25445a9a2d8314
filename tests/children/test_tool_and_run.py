"""The persona_consult tool handler and run_roundtable (the entry points a host uses)."""

from __future__ import annotations

import asyncio
import math

import pytest

from persona_mind.actors import ActorRef, ActorSystem
from persona_mind.actors.child_runner import ChildRunner
from persona_mind.children import (
    CONSULT_TOOL,
    ROUNDTABLE_COMMAND,
    RoundtableProgress,
    handle_consult_tool,
    run_roundtable,
)
from persona_mind.messages.runner import ListChildren, RunnerMessage
from persona_mind.testing import ManualClock, wait_all_tasks_blocked
from persona_mind.testing._scripted import ScriptedModel
from tests.children._helpers import team
from tests.children.test_roundtable_actor import SYNTHESIS, scripted

TEAM = team("architect", "critic")


def test_declarations() -> None:
    assert CONSULT_TOOL.name == "persona_consult"
    assert CONSULT_TOOL.parameters["required"] == ["consultant", "question"]
    assert ROUNDTABLE_COMMAND.name == "persona-roundtable"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("arguments", "active", "match"),
    [
        ({"consultant": "critic"}, "architect", "bad arguments"),
        ({"consultant": "critic", "question": "q", "extra": 1}, "architect", "bad arguments"),
        ({"consultant": "critic", "question": "  "}, "architect", "question is empty"),
        ({"consultant": "ghost", "question": "q"}, "architect", "not a persona of this session"),
        ({"consultant": "architect", "question": "q"}, "architect", "cannot consult itself"),
        (
            {"consultant": "critic", "question": "q", "requester": "lead"},
            "architect",
            "not the active persona",
        ),
        ({"consultant": "critic", "question": "q"}, None, "no persona is active"),
    ],
)
async def test_consult_tool_refusals_are_error_results(
    arguments: dict[str, object], active: str | None, match: str
) -> None:
    clock = ManualClock()
    model = ScriptedModel(clock)
    async with ActorSystem(clock=clock) as system:
        runner: ActorRef[RunnerMessage] = system.spawn(
            lambda: ChildRunner(model), name="child-runner"
        )
        result = await handle_consult_tool(runner, TEAM, arguments, active=active, model="m")
    assert result.is_error
    assert match in result.text
    assert model.calls == []


@pytest.mark.asyncio
async def test_consult_tool_success_and_child_failure() -> None:
    clock = ManualClock()
    model = ScriptedModel(clock).on(persona="critic", reply="It holds.")
    model.on(persona="lead", error="overloaded")
    async with ActorSystem(clock=clock) as system:
        runner: ActorRef[RunnerMessage] = system.spawn(
            lambda: ChildRunner(model), name="child-runner"
        )
        ok = await handle_consult_tool(
            runner, TEAM, {"consultant": "critic", "question": "q"}, active="architect", model="m"
        )
        bad = await handle_consult_tool(
            runner, TEAM, {"consultant": "lead", "question": "q"}, active="architect", model="m"
        )
    assert not ok.is_error
    assert "It holds." in ok.text
    assert ok.details["consultant_id"] == "custom/editorial/critic"
    assert bad.is_error
    assert "overloaded" in bad.text


@pytest.mark.asyncio
async def test_run_roundtable_reports_progress_and_stops_its_coordinator() -> None:
    clock = ManualClock()
    model = scripted(clock)
    seen: list[RoundtableProgress] = []
    async with ActorSystem(clock=clock) as system:
        runner: ActorRef[RunnerMessage] = system.spawn(
            lambda: ChildRunner(model), name="child-runner"
        )
        result = await run_roundtable(
            system, runner, TEAM, "Q?", "m", on_progress=seen.append, run_id="x"
        )
        names = [s.name for s in system.statistics()]
    assert result.synthesis == SYNTHESIS
    assert seen[-1].phase == "done"
    assert "roundtable-x" in names
    assert not any(s.state == "running" for s in system.statistics() if s.name == "roundtable-x")


@pytest.mark.asyncio
async def test_cancelling_run_roundtable_stops_the_children() -> None:
    clock = ManualClock()
    model = scripted(clock, delay=100.0)
    async with ActorSystem(clock=clock) as system:
        runner: ActorRef[RunnerMessage] = system.spawn(
            lambda: ChildRunner(model), name="child-runner"
        )
        task = asyncio.ensure_future(run_roundtable(system, runner, TEAM, "Q?", "m", run_id="c"))
        await wait_all_tasks_blocked()
        assert len(await runner.ask(ListChildren())) == 2
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await runner.ask(ListChildren()) == ()
    assert sorted(model.cancelled) == ["c-round1-architect", "c-round1-critic"]


@pytest.mark.asyncio
async def test_a_generation_change_cancels_a_running_roundtable() -> None:
    """A round-table admitted under generation 1 is stopped when the Owner moves to 2.

    It runs as deferred work of an actor (as the Companion runs it); the kernel cancels
    work admitted under an older generation and the asker gets StaleGeneration."""
    from persona_mind.actors import Actor  # noqa: PLC0415
    from persona_mind.errors import StaleGeneration  # noqa: PLC0415
    from persona_mind.messages._base import Ask  # noqa: PLC0415

    class Start(Ask[object], frozen=True, kw_only=True):
        pass

    clock = ManualClock()
    model = scripted(clock, delay=100.0)
    async with ActorSystem(clock=clock) as system:
        runner: ActorRef[RunnerMessage] = system.spawn(
            lambda: ChildRunner(model), name="child-runner"
        )

        class Requester(Actor[Start]):
            async def receive(self, message: Start) -> object:
                return self.defer(
                    "rt", lambda: run_roundtable(system, runner, TEAM, "Q?", "m", run_id="g")
                )

        requester = system.spawn(Requester, name="requester")
        system.advance_generation()
        task = asyncio.ensure_future(requester.ask(Start(), timeout=math.inf))
        await wait_all_tasks_blocked()
        assert len(await runner.ask(ListChildren())) >= 1
        system.advance_generation()
        with pytest.raises(StaleGeneration, match="generation 1"):
            await task
        await wait_all_tasks_blocked()
        assert await runner.ask(ListChildren()) == ()
    assert not any(c.kind == "synthesis" for c in model.calls)
