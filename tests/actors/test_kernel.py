"""Acceptance tests of the actor kernel (issue 2). Each test states the invariant it proves."""

from __future__ import annotations

import asyncio

import pytest

from persona_mind.actors import Actor, ActorRef, ActorSystem, RestartPolicy
from persona_mind.errors import (
    ActorStopped,
    AskTimeout,
    Escalated,
    PersonaMindError,
    StaleGeneration,
    UnknownMessage,
)
from persona_mind.messages._base import Msg
from persona_mind.testing import ManualClock, restarted, wait_all_tasks_blocked
from tests.actors._fixtures import (
    Block,
    Boom,
    CancelWork,
    Log,
    Put,
    Recorder,
    RecorderMsg,
    Refuse,
    SetGen,
    StartLog,
    StartWork,
)


class Stranger(Msg, frozen=True, kw_only=True):
    pass


def _spawn(
    system: ActorSystem,
    instances: list[Recorder],
    name: str = "rec",
    restart: RestartPolicy | None = None,
    gate: asyncio.Event | None = None,
) -> ActorRef[RecorderMsg]:
    def factory() -> Recorder:
        actor = Recorder(gate=gate)
        instances.append(actor)
        return actor

    return system.spawn(factory, name=name, restart=restart)


@pytest.mark.asyncio
async def test_fifo_per_sender_receiver_pair() -> None:
    """Messages from one sender arrive in the order sent, however senders interleave."""
    async with ActorSystem(clock=ManualClock()) as system:
        ref = _spawn(system, [])

        turns = asyncio.Barrier(3)  # the three senders take turns every 7 messages

        async def sender(name: str) -> None:
            for seq in range(200):
                ref.tell(Put(sender=name, seq=seq))
                if seq % 7 == 0:
                    await turns.wait()

        await asyncio.gather(sender("a"), sender("b"), sender("c"))
        log = await ref.ask(Log())
        for name in "abc":
            assert [seq for who, seq in log if who == name] == list(range(200))


@pytest.mark.asyncio
async def test_ask_times_out_on_the_injected_clock() -> None:
    """An unanswered ask fails with AskTimeout exactly when the clock passes its timeout."""
    clock = ManualClock()
    gate = asyncio.Event()
    async with ActorSystem(clock=clock) as system:
        instances: list[Recorder] = []
        ref = _spawn(system, instances, gate=gate)
        pending = asyncio.create_task(ref.ask(Block(), timeout=2.0))
        await asyncio.wait_for(_entered(instances), 5)
        clock.advance(1.999)
        await wait_all_tasks_blocked()
        assert not pending.done()
        clock.advance(0.001)
        with pytest.raises(AskTimeout, match="did not answer Block within 2s"):
            await pending
        gate.set()


async def _entered(instances: list[Recorder]) -> None:
    await instances[-1].entered.wait()  # the first instance is built at spawn


@pytest.mark.asyncio
async def test_every_pending_ask_is_answered_when_the_actor_crashes() -> None:
    """On a crash the culprit's asker and every queued asker get ActorStopped; none hangs."""
    gate = asyncio.Event()
    async with ActorSystem(clock=ManualClock()) as system:
        instances: list[Recorder] = []
        ref = _spawn(system, instances, gate=gate)
        blocked = asyncio.create_task(ref.ask(Block()))
        await asyncio.wait_for(_entered(instances), 5)
        crash = asyncio.create_task(ref.ask(Boom()))
        queued = [asyncio.create_task(ref.ask(Log())) for _ in range(5)]
        await wait_all_tasks_blocked()
        assert ref.statistics().queued == 6  # Boom and the five Logs wait behind Block
        gate.set()
        assert await blocked == "released"
        with pytest.raises(ActorStopped, match="crashed while handling Boom") as info:
            await crash
        assert isinstance(info.value.__cause__, RuntimeError)
        for task in queued:
            with pytest.raises(ActorStopped, match="crashed"):
                await task
        # the ref survives the restart and answers again
        assert await ref.ask(Log()) == []
        assert ref.statistics().restarts == 1


@pytest.mark.asyncio
async def test_every_pending_ask_is_answered_when_the_actor_stops() -> None:
    """Stopping lets the current message finish, then fails each queued ask with ActorStopped."""
    gate = asyncio.Event()
    async with ActorSystem(clock=ManualClock()) as system:
        instances: list[Recorder] = []
        ref = _spawn(system, instances, gate=gate)
        blocked = asyncio.create_task(ref.ask(Block()))
        await asyncio.wait_for(_entered(instances), 5)
        queued = [asyncio.create_task(ref.ask(Log())) for _ in range(3)]
        await wait_all_tasks_blocked()
        assert ref.statistics().queued == 3
        stopping = asyncio.create_task(ref.stop())
        await wait_all_tasks_blocked()
        assert ref.statistics().state == "stopping"
        gate.set()
        await stopping
        assert await blocked == "released"
        for task in queued:
            with pytest.raises(ActorStopped, match="unavailable"):
                await task
        with pytest.raises(ActorStopped):
            ref.tell(Log())
        with pytest.raises(ActorStopped):
            await ref.ask(Log())


@pytest.mark.asyncio
async def test_refusal_reaches_the_asker_without_crashing_the_actor() -> None:
    """A PersonaMindError from a handler is an answer, not a crash: no restart happens."""
    async with ActorSystem(clock=ManualClock()) as system:
        ref = _spawn(system, [])
        ref.tell(Put(sender="x", seq=1))
        with pytest.raises(PersonaMindError, match="breaks a rule"):
            await ref.ask(Refuse())
        assert await ref.ask(Log()) == [("x", 1)]
        assert ref.statistics().restarts == 0


@pytest.mark.asyncio
async def test_restart_intensity_then_escalation() -> None:
    """3 crashes within 5 s are restarted; the 4th escalates, stopping the system."""
    clock = ManualClock()
    system = ActorSystem(clock=clock)
    instances: list[Recorder] = []
    await system.__aenter__()
    ref = _spawn(system, instances, restart=RestartPolicy(max_restarts=3, within=5.0))
    for _ in range(3):
        with pytest.raises(ActorStopped):
            await ref.ask(Boom())
        assert await ref.ask(Log()) == []
    assert ref.statistics().restarts == 3
    with pytest.raises(ActorStopped):
        await ref.ask(Boom())
    failure = await asyncio.wait_for(system.wait_failed(), 5)
    assert "'rec' crashed more than its restart intensity allows" in str(failure)
    assert not ref.is_alive()
    assert len(instances) == 4
    with pytest.raises(Escalated, match="gave up"):
        await system.__aexit__(None, None, None)


@pytest.mark.asyncio
async def test_crashes_spread_out_in_time_do_not_escalate() -> None:
    """Intensity is a rate: crashes further apart than the window keep being restarted."""
    clock = ManualClock()
    async with ActorSystem(clock=clock) as system:
        ref = _spawn(system, [], restart=RestartPolicy(max_restarts=1, within=5.0))
        for _ in range(4):
            with pytest.raises(ActorStopped):
                await ref.ask(Boom())
            assert await ref.ask(Log()) == []
            clock.advance(5.0)
        assert ref.statistics().restarts == 4
        assert system.failure is None


@pytest.mark.asyncio
async def test_escalation_restarts_a_child_supervisor_subtree() -> None:
    """A child supervisor that gives up is restarted whole by its parent; refs stay valid."""
    async with ActorSystem(clock=ManualClock()) as system:
        group = system.supervisor("group", RestartPolicy(max_restarts=0, within=5.0))
        started = StartLog()
        a = group.spawn(lambda: Recorder(started=started), name="a")
        b = group.spawn(lambda: Recorder(started=started), name="b")
        await a.ask(Log())
        await b.ask(Log())
        with pytest.raises(ActorStopped):
            await a.ask(Boom())
        # wait until the subtree came back: both actors restarted in start order
        while started.count("b") < 2:
            started.changed.clear()
            await asyncio.wait_for(started.changed.wait(), 5)
        assert started == ["a", "b", "a", "b"]
        assert await a.ask(Log()) == []
        assert await b.ask(Log()) == []
        assert system.failure is None


@pytest.mark.asyncio
async def test_stop_runs_in_reverse_start_order() -> None:
    """The system stops actors last-started first, so dependents go before what they use."""
    stopped: list[str] = []

    class Tracking(Recorder):
        async def on_stop(self) -> None:
            stopped.append(self.name)

    async with ActorSystem(clock=ManualClock()) as system:
        for name in ("store", "owner", "companion"):
            ref = system.spawn(Tracking, name=name)
            await ref.ask(Log())
    assert stopped == ["companion", "owner", "store"]


@pytest.mark.asyncio
async def test_stale_generation_messages_are_dropped_and_counted() -> None:
    """Work sent under an older generation never reaches the handler; asks get StaleGeneration."""
    async with ActorSystem(clock=ManualClock()) as system:
        ref = _spawn(system, [])
        assert await ref.ask(SetGen(generation=2)) == 2
        ref.tell(Put(sender="old", seq=1), generation=1)
        ref.tell(Put(sender="current", seq=2), generation=2)
        ref.tell(Put(sender="unscoped", seq=3))
        with pytest.raises(StaleGeneration, match="generation 1"):
            await ref.ask(Log(), generation=1)
        assert await ref.ask(Log()) == [("current", 2), ("unscoped", 3)]
        assert ref.statistics().dropped_stale == 2


@pytest.mark.asyncio
async def test_cancellation_by_message_reaches_in_flight_work() -> None:
    """A Cancel message cancels running background work; its outcome arrives as a message."""
    async with ActorSystem(clock=ManualClock()) as system:
        instances: list[Recorder] = []
        ref = _spawn(system, instances)
        await ref.ask(StartWork(key="job"))
        await asyncio.wait_for(instances[0].work_started.wait(), 5)
        assert await ref.ask(CancelWork(key="job")) is True
        await asyncio.wait_for(instances[0].work_done.wait(), 5)
        assert ("job", "Cancelled") in await ref.ask(Log())
        assert await ref.ask(CancelWork(key="job")) is False  # nothing left to cancel


@pytest.mark.asyncio
async def test_background_work_is_cancelled_on_crash_and_its_outcome_dropped() -> None:
    """A restart cancels the old incarnation's work; the new instance never sees its outcome."""
    async with ActorSystem(clock=ManualClock()) as system:
        instances: list[Recorder] = []
        ref = _spawn(system, instances)
        await ref.ask(StartWork(key="job"))
        await asyncio.wait_for(instances[0].work_started.wait(), 5)
        with pytest.raises(ActorStopped):
            await ref.ask(Boom())
        await restarted(ref)
        await wait_all_tasks_blocked()  # an outcome of the old work would have arrived
        assert await ref.ask(Log()) == []


@pytest.mark.asyncio
async def test_unknown_message_type_is_a_typed_error_before_queueing() -> None:
    """A type outside the actor's union is refused synchronously with UnknownMessage."""
    async with ActorSystem(clock=ManualClock()) as system:
        ref = _spawn(system, [])
        with pytest.raises(UnknownMessage, match="does not accept Stranger"):
            ref.tell(Stranger())  # type: ignore[arg-type]  # mypy catches it statically too
        with pytest.raises(UnknownMessage):
            await ref.ask(Stranger())  # type: ignore[call-overload]
        assert ref.statistics().queued == 0


@pytest.mark.asyncio
async def test_duplicate_actor_names_are_refused() -> None:
    """Names key the trace, so two live actors may not share one."""
    async with ActorSystem(clock=ManualClock()) as system:
        _spawn(system, [])
        with pytest.raises(PersonaMindError, match="already exists"):
            _spawn(system, [])


class Slow(Msg, frozen=True, kw_only=True):
    key: str


class Quick(Msg, frozen=True, kw_only=True):
    pass


class Deferring(Actor[Slow | Quick]):
    """Answers Slow later (deferred) while still answering Quick at once."""

    def __init__(self) -> None:
        self.gates: dict[str, asyncio.Event] = {}

    async def receive(self, message: Slow | Quick) -> object:
        match message:
            case Slow():
                gate = self.gates.setdefault(message.key, asyncio.Event())

                async def work() -> str:
                    await gate.wait()
                    return f"{message.key} done"

                return self.defer(message.key, work)
            case Quick():
                return "quick"


@pytest.mark.asyncio
async def test_deferred_replies_do_not_hold_the_mailbox() -> None:
    """Slow asks answered by defer() run side by side; the mailbox keeps serving others."""
    async with ActorSystem(clock=ManualClock()) as system:
        instances: list[Deferring] = []

        def factory() -> Deferring:
            instances.append(Deferring())
            return instances[-1]

        ref = system.spawn(factory, name="deferring")
        first = asyncio.create_task(ref.ask(Slow(key="a")))
        second = asyncio.create_task(ref.ask(Slow(key="b")))
        await wait_all_tasks_blocked()  # both slow asks are deferred and running
        assert await ref.ask(Quick()) == "quick"  # not stuck behind the slow ones
        instances[0].gates["b"].set()
        assert await second == "b done"
        assert not first.done()
        instances[0].gates["a"].set()
        assert await first == "a done"


@pytest.mark.asyncio
async def test_deferred_work_cancelled_by_stop_answers_the_asker() -> None:
    """A stop cancels deferred work and its asker gets ActorStopped, never a hang."""
    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Deferring, name="deferring")
        pending = asyncio.create_task(ref.ask(Slow(key="a")))
        await wait_all_tasks_blocked()  # the slow ask is deferred and its work runs
        assert await ref.ask(Quick()) == "quick"
        await ref.stop()
        with pytest.raises(ActorStopped, match="cancelled"):
            await pending


@pytest.mark.asyncio
async def test_cancelling_the_asker_cancels_its_deferred_work() -> None:
    """An asker that gives up (Pi aborted the tool call) stops the deferred work it started."""
    cancelled = asyncio.Event()

    class Watching(Deferring):
        async def receive(self, message: Slow | Quick) -> object:
            if isinstance(message, Slow):

                async def work() -> str:
                    try:
                        await asyncio.Event().wait()
                    except asyncio.CancelledError:
                        cancelled.set()
                        raise
                    return "never"

                return self.defer(message.key, work)
            return await super().receive(message)

    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Watching, name="watching")
        pending = asyncio.create_task(ref.ask(Slow(key="a")))
        await wait_all_tasks_blocked()
        assert await ref.ask(Quick()) == "quick"  # the work is running now
        pending.cancel()
        await asyncio.wait_for(cancelled.wait(), 5)
        assert ref.is_alive()
