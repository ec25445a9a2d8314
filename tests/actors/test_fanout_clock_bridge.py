"""Fan-out all-or-nothing, the manual clock, the thread bridge (issue 2 acceptance)."""

from __future__ import annotations

import asyncio
import functools
import threading

import pytest

from persona_mind.actors import Actor, ActorRef, ActorSystem, IOThread, fan_out
from persona_mind.errors import ActorStopped, FanOutFailed
from persona_mind.messages._base import Msg
from persona_mind.testing import ManualClock, TestProbe, wait_all_tasks_blocked


@pytest.mark.asyncio
async def test_fan_out_returns_every_result_in_leg_order() -> None:
    """When every leg succeeds, fan-in returns all results keyed and ordered like the legs."""

    started: list[int] = []
    all_in_flight = asyncio.Event()

    async def leg(value: int) -> int:
        started.append(value)
        if len(started) == 3:
            all_in_flight.set()
        await all_in_flight.wait()  # each leg suspends until all three run at once
        return value * 10

    legs = {name: functools.partial(leg, v) for v, name in enumerate("abc")}
    result = await fan_out(legs, timeout=5, clock=ManualClock())
    assert result == {"a": 0, "b": 10, "c": 20}
    assert list(result) == ["a", "b", "c"]


@pytest.mark.asyncio
async def test_fan_out_cancels_siblings_on_first_failure_with_no_partial_result() -> None:
    """The first failure cancels every unfinished sibling; the caller gets no partial answers."""
    cancelled: list[str] = []
    finished = asyncio.Event()

    async def slow(name: str) -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(name)
            raise
        return name

    async def quick() -> str:
        finished.set()
        return "quick"

    async def failing() -> str:
        await finished.wait()
        raise ValueError("specialist refused")

    with pytest.raises(FanOutFailed, match=r"'bad' failed .*specialist refused") as info:
        await fan_out(
            {"s1": lambda: slow("s1"), "ok": quick, "bad": failing, "s2": lambda: slow("s2")},
            timeout=60,
            clock=ManualClock(),
        )
    assert sorted(cancelled) == ["s1", "s2"]
    assert info.value.leg == "bad"
    assert not hasattr(info.value, "results")


@pytest.mark.asyncio
async def test_fan_out_deadline_on_the_injected_clock_cancels_everything() -> None:
    """Passing the deadline cancels all legs and fails the fan-out as a whole."""
    clock = ManualClock()
    started = asyncio.Event()

    async def hang() -> None:
        started.set()
        await asyncio.Event().wait()

    task = asyncio.create_task(fan_out({"a": hang, "b": hang}, timeout=30, clock=clock))
    await asyncio.wait_for(started.wait(), 5)
    clock.advance(29.9)
    await wait_all_tasks_blocked()
    assert not task.done()
    clock.advance(0.1)
    with pytest.raises(FanOutFailed, match="<deadline>"):
        await task


class Tick(Msg, frozen=True, kw_only=True):
    n: int


@pytest.mark.asyncio
async def test_manual_clock_fires_timers_in_time_order_only_when_advanced() -> None:
    """Timers fire in due order (ties in scheduling order) and only when the test advances."""
    clock = ManualClock()
    fired: list[str] = []
    clock.call_later(5, lambda: fired.append("b@5"))
    clock.call_later(1, lambda: fired.append("a@1"))
    clock.call_later(5, lambda: fired.append("c@5"))
    cancelled = clock.call_later(3, lambda: fired.append("never"))
    cancelled.cancel()
    assert clock.advance(0.5) == 0
    assert fired == []
    assert clock.advance(4.5) == 3
    assert fired == ["a@1", "b@5", "c@5"]
    assert clock.monotonic() == 5.0
    assert clock.pending() == 0
    with pytest.raises(ValueError, match="backwards"):
        clock.advance(-1)


@pytest.mark.asyncio
async def test_manual_clock_timers_arrive_as_messages() -> None:
    """send_after delivers a message to an actor at the due time, ordered in its mailbox."""
    clock = ManualClock()
    async with ActorSystem(clock=clock) as system:
        probe = TestProbe(system)
        clock.send_after(10, probe.ref, Tick(n=2))
        clock.send_after(5, probe.ref, Tick(n=1))
        clock.advance(7)
        assert (await probe.expect(Tick)).n == 1
        probe.expect_none()
        clock.advance(3)
        assert (await probe.expect(Tick)).n == 2


@pytest.mark.asyncio
async def test_manual_clock_sleep_resolves_when_advanced() -> None:
    """clock.sleep is virtual: it resolves exactly when time passes its deadline."""
    clock = ManualClock()
    sleeper = asyncio.create_task(clock.sleep(60))
    await wait_all_tasks_blocked()  # the sleeper armed its timer
    clock.advance(59)
    await wait_all_tasks_blocked()
    assert not sleeper.done()
    clock.advance(1)
    await asyncio.wait_for(sleeper, 5)


@pytest.mark.asyncio
async def test_thread_bridge_runs_blocking_calls_off_the_loop_in_order() -> None:
    """Blocking calls run on one bridge thread, in submission order, while the loop stays free."""
    bridge = IOThread("io")
    release = threading.Event()
    order: list[int] = []
    threads: set[str] = set()

    def blocking(n: int) -> int:
        threads.add(threading.current_thread().name)
        if n == 0:
            assert release.wait(10)
        order.append(n)
        return n * 2

    calls = [asyncio.create_task(bridge.call(blocking, n)) for n in range(5)]
    # the loop is not blocked: every task settles here while call 0 blocks the bridge thread
    await wait_all_tasks_blocked()
    assert order == []
    release.set()
    assert await asyncio.gather(*calls) == [0, 2, 4, 6, 8]
    assert order == [0, 1, 2, 3, 4]
    assert threading.current_thread().name not in threads
    assert len(threads) == 1

    def fail() -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        await bridge.call(fail)
    await bridge.aclose()
    with pytest.raises(ActorStopped):
        await bridge.call(blocking, 1)


class Ping(Msg, frozen=True, kw_only=True):
    hops: int


class Relay(Actor[Ping]):
    """Forwards a ping to its peer until the hop count runs out."""

    def __init__(self, peer: list[ActorRef[Ping]], done: asyncio.Event) -> None:
        self.peer = peer
        self.done = done

    async def receive(self, message: Ping) -> object:
        if message.hops > 0:
            self.peer[0].tell(Ping(hops=message.hops - 1))
        else:
            self.done.set()
        return message.hops


@pytest.mark.asyncio
async def test_fan_out_failure_lets_a_cancelled_legs_cleanup_finish() -> None:
    """A sibling is cancelled once: its cleanup awaits (as run_child awaits its child's
    stop) and finishes before FanOutFailed reaches the caller (issue 10 scope 6)."""
    cleaned: list[str] = []
    child_stopped = asyncio.Event()
    hanging = asyncio.Event()

    async def hang() -> None:
        hanging.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            asyncio.get_running_loop().call_soon(child_stopped.set)
            await child_stopped.wait()  # the cleanup needs another loop turn
            cleaned.append("hang")
            raise

    async def boom() -> None:
        await hanging.wait()
        raise RuntimeError("provider down")

    with pytest.raises(FanOutFailed, match="boom"):
        await fan_out({"hang": hang, "boom": boom}, timeout=30, clock=ManualClock())
    assert cleaned == ["hang"]


@pytest.mark.asyncio
async def test_cancelling_the_fan_out_cancels_and_awaits_every_leg() -> None:
    ended: list[str] = []
    started = asyncio.Event()

    async def leg(name: str) -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            stopped = asyncio.Event()
            asyncio.get_running_loop().call_soon(stopped.set)
            await stopped.wait()  # a cleanup that needs another loop turn
            ended.append(name)

    task = asyncio.ensure_future(
        fan_out({n: functools.partial(leg, n) for n in "ab"}, timeout=30, clock=ManualClock())
    )
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(ended) == ["a", "b"]


@pytest.mark.asyncio
async def test_fan_out_of_no_legs_is_an_empty_answer() -> None:
    assert await fan_out({}, timeout=1, clock=ManualClock()) == {}
