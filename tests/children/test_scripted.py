"""ScriptedModel: the in-process backend the SimHost reuses (rules, errors, virtual time)."""

from __future__ import annotations

import asyncio

import pytest

from persona_mind.children import ChildDeadlineExceeded, ChildModelError, ChildUsage
from persona_mind.testing import ManualClock, wait_all_tasks_blocked
from persona_mind.testing._scripted import ScriptedModel
from tests.children._helpers import request


@pytest.mark.asyncio
async def test_most_specific_first_matching_rule_wins_and_times_expire() -> None:
    model = ScriptedModel(ManualClock())
    model.on(persona="architect", phase="consult", prompt_contains="queue", reply="A", times=1)
    model.on(persona="architect", reply="B")
    assert (await model.run(request(prompt="a queue?"), lambda _: None)).text == "A"
    assert (await model.run(request(prompt="a queue?"), lambda _: None)).text == "B"
    assert (await model.run(request("critic"), lambda _: None)).text == "[critic] consult answer"
    assert [c.prompt for c in model.calls] == ["a queue?", "a queue?", "What should we build?"]


@pytest.mark.asyncio
async def test_errors_are_typed_and_exceptions_pass_through() -> None:
    model = ScriptedModel(ManualClock()).on(persona="architect", error="quota")
    model.on(persona="critic", error=ChildDeadlineExceeded("x", 1.0))
    with pytest.raises(ChildModelError, match="quota"):
        await model.run(request(), lambda _: None)
    with pytest.raises(ChildDeadlineExceeded):
        await model.run(request("critic"), lambda _: None)


@pytest.mark.asyncio
@pytest.mark.parametrize(("advance", "done"), [(4.999, False), (5.0, True)])
async def test_delay_reads_the_injected_clock(advance: float, done: bool) -> None:
    clock = ManualClock()
    usage = ChildUsage(input_tokens=3, output_tokens=2)
    model = ScriptedModel(clock).on(reply="late", delay=5.0, usage=usage)
    task = asyncio.ensure_future(model.run(request(), lambda _: None))
    await wait_all_tasks_blocked()
    clock.advance(advance)
    await wait_all_tasks_blocked()
    assert task.done() is done
    if done:
        reply = task.result()
        assert (reply.text, reply.usage, reply.duration) == ("late", usage, 5.0)
    else:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert model.cancelled == ["r1"]


@pytest.mark.asyncio
async def test_hang_ends_at_the_request_deadline() -> None:
    clock = ManualClock()
    model = ScriptedModel(clock).on(hang=True)
    task = asyncio.ensure_future(model.run(request(deadline=12.0), lambda _: None))
    await wait_all_tasks_blocked()
    clock.advance(12.0)
    with pytest.raises(ChildDeadlineExceeded, match="within 12s"):
        await task
