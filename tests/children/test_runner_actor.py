"""The ChildRunner actor on the scripted model and on the fake pi."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from persona_mind.actors import Actor, ActorSystem
from persona_mind.actors.child_runner import ChildRunner, run_child
from persona_mind.children import (
    CancelLadder,
    ChildCancelled,
    ChildDeadlineExceeded,
    ChildModelError,
    ChildReply,
    PiBackend,
    group_members,
)
from persona_mind.clock import MonotonicClock
from persona_mind.errors import ChildError
from persona_mind.messages.runner import (
    CancelChild,
    ChildActivity,
    ListChildren,
    RunChild,
)
from persona_mind.testing import ManualClock, wait_all_tasks_blocked
from persona_mind.testing._scripted import ScriptedModel
from tests.children._helpers import fake_env, fake_log, request


class Inbox(Actor[ChildActivity]):
    """Records the progress the runner forwards."""

    def __init__(
        self, got: list[object], done: asyncio.Event, turn: asyncio.Event | None = None
    ) -> None:
        self.got = got
        self.done = done
        self.turn = turn

    async def receive(self, message: ChildActivity) -> object:
        self.got.append(message)
        if isinstance(message, ChildActivity) and message.progress.event == "turn" and self.turn:
            self.turn.set()
        return None


async def settle() -> None:
    await wait_all_tasks_blocked()


@pytest.mark.asyncio
async def test_run_child_returns_the_reply_and_forwards_progress() -> None:
    clock = ManualClock()
    model = ScriptedModel(clock).on(persona="architect", reply="Use a queue.")
    got: list[object] = []
    done = asyncio.Event()
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        inbox = system.spawn(lambda: Inbox(got, done), name="inbox")
        reply = await run_child(runner, request(), progress_to=inbox)
    assert isinstance(reply, ChildReply)
    assert reply.text == "Use a queue."
    assert any(isinstance(m, ChildActivity) for m in got)


@pytest.mark.asyncio
async def test_duplicate_request_id_is_refused() -> None:
    clock = ManualClock()
    model = ScriptedModel(clock).on(hang=True)
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        first = asyncio.ensure_future(run_child(runner, request(rid="same")))
        await settle()
        with pytest.raises(ChildError, match="already running"):
            await runner.ask(RunChild(request=request(rid="same")))
        first.cancel()


@pytest.mark.asyncio
async def test_cancel_by_message_fails_the_future_typed() -> None:
    clock = ManualClock()
    model = ScriptedModel(clock).on(hang=True)
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        fut = asyncio.ensure_future(run_child(runner, request=request(rid="c1")))
        await settle()
        assert [s.request_id for s in await runner.ask(ListChildren())] == ["c1"]
        assert await runner.ask(CancelChild(request_id="c1", reason="user pressed Esc")) is True
        with pytest.raises(ChildCancelled, match="user pressed Esc"):
            await fut
        assert await runner.ask(ListChildren()) == ()
        assert await runner.ask(CancelChild(request_id="c1")) is False
    assert model.cancelled == ["c1"]


@pytest.mark.asyncio
@pytest.mark.parametrize(("elapsed", "finished"), [(29.999, False), (30.0, True)])
async def test_backend_deadline_at_its_boundary(elapsed: float, finished: bool) -> None:
    clock = ManualClock()
    model = ScriptedModel(clock).on(hang=True)
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        fut = asyncio.ensure_future(run_child(runner, request=request(deadline=30.0)))
        await settle()
        clock.advance(elapsed)
        await settle()
        assert fut.done() is finished
        if finished:
            with pytest.raises(ChildDeadlineExceeded):
                await fut


class DeafBackend:
    """A backend that ignores its deadline: the runner's watchdog must stop it."""

    name = "deaf"

    async def run(self, request: Any, on_progress: Any) -> ChildReply:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


@pytest.mark.asyncio
async def test_watchdog_stops_a_backend_that_ignores_its_deadline() -> None:
    clock = ManualClock()
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(
            lambda: ChildRunner(DeafBackend(), overdue_margin=15.0), name="child-runner"
        )
        fut = asyncio.ensure_future(run_child(runner, request=request(deadline=30.0)))
        await settle()
        clock.advance(44.9)
        await settle()
        assert not fut.done()
        clock.advance(0.1)
        await settle()
        with pytest.raises(ChildDeadlineExceeded):
            await fut


@pytest.mark.asyncio
async def test_model_error_reaches_the_caller_unchanged_and_is_not_retried() -> None:
    """P-CHILD-8: a failed child is reported, never relaunched."""
    clock = ManualClock()
    model = ScriptedModel(clock).on(error="provider said no")
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        with pytest.raises(ChildModelError, match="provider said no"):
            await run_child(runner, request())
    assert len(model.calls) == 1


@pytest.mark.asyncio
async def test_cancelled_caller_of_run_child_stops_the_child() -> None:
    clock = ManualClock()
    model = ScriptedModel(clock).on(hang=True)
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        task = asyncio.ensure_future(run_child(runner, request(rid="x")))
        await settle()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await runner.ask(ListChildren()) == ()
    assert model.cancelled == ["x"]


@pytest.mark.asyncio
async def test_stopping_the_system_leaves_no_fake_pi_process(
    fake_pi_direct: tuple[str, ...], tmp_path: Path
) -> None:
    """No orphans: stopping the runtime with a child mid-run stops its process group."""
    backend = PiBackend(
        fake_pi_direct,
        clock=MonotonicClock(),
        env=fake_env(tmp_path, {"default": {"hang": True, "grandchild": True}}),
        ladder=CancelLadder(abort_grace=2, term_grace=2, kill_grace=5),
    )
    trace = tmp_path / "trace.jsonl"
    async with ActorSystem(clock=MonotonicClock(), trace_path=trace) as system:
        runner = system.spawn(lambda: ChildRunner(backend), name="child-runner")
        got: list[object] = []
        turn = asyncio.Event()
        inbox = system.spawn(lambda: Inbox(got, asyncio.Event(), turn), name="inbox")
        fut = asyncio.ensure_future(run_child(runner, request=request(rid="p1"), progress_to=inbox))
        await turn.wait()
        assert (await runner.ask(ListChildren()))[0].pid == fake_log(tmp_path)[0]["pid"]
    (entry,) = fake_log(tmp_path)
    assert group_members(entry["pid"]) == []
    with pytest.raises(ChildCancelled):
        await fut
    phases = [
        json.loads(line).get("reason")
        for line in trace.read_text().splitlines()
        if json.loads(line)["ev"] == "child"
    ]
    assert phases[:2] == ["admitted", "spawned"]
    assert "exited" in phases


@pytest.mark.asyncio
async def test_a_newer_generation_cancels_older_children_and_refuses_late_admissions() -> None:
    """Generations: no late child answer reaches a replaced session (ARCHITECTURE).

    The kernel does it: the runner compares nothing by hand."""
    from persona_mind.errors import StaleGeneration  # noqa: PLC0415

    clock = ManualClock()
    model = ScriptedModel(clock).on(hang=True)
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        system.advance_generation()  # generation 1
        old = asyncio.ensure_future(run_child(runner, request(rid="g1"), generation=1))
        free = asyncio.ensure_future(run_child(runner, request(rid="nog")))  # admitted now
        await settle()
        system.advance_generation()  # generation 2: the Owner started a new session
        with pytest.raises(StaleGeneration, match="generation 1"):
            await old
        await settle()
        with pytest.raises(StaleGeneration):
            await runner.ask(RunChild(request=request(rid="g1b")), generation=1)
        current = asyncio.ensure_future(run_child(runner, request(rid="g2"), generation=2))
        await settle()
        running = sorted(s.request_id for s in await runner.ask(ListChildren()))
        assert running == ["g2"]  # "nog" was admitted under generation 1 too: cancelled
        assert free.done()
        assert not current.done()
        current.cancel()
        await asyncio.gather(current, free, return_exceptions=True)
    assert sorted(model.cancelled) == ["g1", "g2", "nog"]
