"""ManualClock autojump (trio's MockClock(autojump_threshold=0)) and timer context."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from persona_mind.actors import Actor, ActorSystem
from persona_mind.errors import AskTimeout
from persona_mind.messages._base import Ask, Msg
from persona_mind.testing import ManualClock, wait_all_tasks_blocked


async def runnable_steps(count: int, record: Callable[[int], None]) -> None:
    """A task that stays runnable for ``count`` loop iterations (the workload these tests
    need): each step awaits a future the loop resolves on its very next iteration."""
    loop = asyncio.get_running_loop()
    for i in range(count):
        record(i)
        step: asyncio.Future[None] = loop.create_future()
        loop.call_soon(step.set_result, None)
        await step


@pytest.mark.asyncio
async def test_autojump_moves_time_when_every_task_is_blocked() -> None:
    """A five-minute sleep returns at once, at exactly +300 s of clock time."""
    clock = ManualClock(autojump=True)
    await clock.sleep(300.0)
    assert clock.monotonic() == 300.0
    assert clock.jumps == 1


@pytest.mark.asyncio
async def test_autojump_waits_while_another_task_can_still_run() -> None:
    """Time does not jump past work that is still runnable: the busy task finishes its
    steps before the sleeper's deadline is reached."""
    clock = ManualClock(autojump=True)
    steps: list[float] = []

    busy = runnable_steps(50, lambda _: steps.append(clock.monotonic()))
    await asyncio.gather(clock.sleep(10.0), busy)
    assert steps == [0.0] * 50
    assert clock.monotonic() == 10.0


@pytest.mark.asyncio
async def test_without_autojump_time_stands_still() -> None:
    clock = ManualClock()
    sleeper = asyncio.ensure_future(clock.sleep(1.0))
    await wait_all_tasks_blocked()  # everything that can run has run: time did not move
    assert not sleeper.done()
    clock.advance(1.0)
    await sleeper


class Silent(Ask[None], frozen=True, kw_only=True):
    pass


class Never(Actor[Silent]):
    async def receive(self, message: Silent) -> None:
        await asyncio.Event().wait()


@pytest.mark.asyncio
async def test_an_ask_timeout_fires_by_autojump() -> None:
    """An ask to a handler that never answers times out on the virtual clock, unattended."""
    clock = ManualClock(autojump=True)
    async with ActorSystem(clock=clock) as system:
        ref = system.spawn(Never, name="never")
        with pytest.raises(AskTimeout, match="within 30s"):
            await ref.ask(Silent(), timeout=30.0)
        assert clock.monotonic() == 30.0
        await ref.stop(force=True)


class Tick(Msg, frozen=True, kw_only=True):
    pass


class Arm(Ask[None], frozen=True, kw_only=True):
    pass


@pytest.mark.asyncio
async def test_a_timer_message_keeps_the_generation_it_was_armed_under() -> None:
    """A timer armed under generation 1 that fires in generation 2 is dropped as stale."""
    ticks: list[int] = []

    class Timed(Actor[Arm | Tick]):
        async def receive(self, message: Arm | Tick) -> None:
            match message:
                case Arm():
                    self.clock.send_after(5.0, self.ref, Tick())
                case Tick():
                    ticks.append(self.admitted)

    clock = ManualClock()
    async with ActorSystem(clock=clock) as system:
        ref = system.spawn(Timed, name="timed")
        system.advance_generation()
        await ref.ask(Arm())  # armed in generation 1
        await ref.ask(Arm())
        system.advance_generation()  # generation 2: the first two timers are now stale
        await ref.ask(Arm())  # armed in generation 2
        clock.advance(5.0)
        await ref.ask(Arm())  # a round trip: every fired timer has been handled
    assert ticks == [2]
    assert ref.statistics().dropped_stale == 2


@pytest.mark.asyncio
async def test_wait_all_tasks_blocked_returns_once_nothing_else_can_run() -> None:
    """A chain of tasks that keep yielding finishes before the wait returns; a task blocked
    on an event does not hold it up."""
    steps: list[int] = []
    gate = asyncio.Event()
    blocked = asyncio.ensure_future(gate.wait())
    worker = asyncio.ensure_future(runnable_steps(30, steps.append))
    await wait_all_tasks_blocked()
    assert steps == list(range(30))
    assert worker.done()
    assert not blocked.done()
    gate.set()
    await blocked
