"""Kernel guarantees of issue 10: every ask answered, no zombies, work awaited, generations.

Each test names the invariant it proves; none sleeps on the wall clock to synchronise
(events and the kernel's own answers do it).
"""

from __future__ import annotations

import asyncio
import math

import pytest

from persona_mind.actors import Actor, ActorRef, ActorSystem, Outcome
from persona_mind.errors import ActorStopped, StaleGeneration
from persona_mind.messages._base import Ask, Msg
from persona_mind.testing import ManualClock, wait_all_tasks_blocked
from tests.actors._fixtures import Block, Log, Put, Recorder, RecorderMsg


class Stray(Ask[None], frozen=True, kw_only=True):
    """Handled by raising a bare CancelledError (a bug in a handler, not a stop)."""


class Ping(Ask[str], frozen=True, kw_only=True):
    pass


class Begin(Ask[None], frozen=True, kw_only=True):
    pass


class Ended(Msg, frozen=True, kw_only=True):
    key: str


class Strays(Actor[Stray | Ping]):
    async def receive(self, message: Stray | Ping) -> str | None:
        match message:
            case Stray():
                raise asyncio.CancelledError  # e.g. awaited a future someone cancelled
            case Ping():
                return "pong"


class Worker(Actor[Begin | Ended]):
    """Starts work whose cancellation cleanup is slow; records when the cleanup ran."""

    def __init__(self, cleaned: list[str], entered: asyncio.Event) -> None:
        self.cleaned = cleaned
        self.entered = entered

    async def receive(self, message: Begin | Ended) -> None:
        match message:
            case Begin():
                self.start_work("slow", self._slow, self._ended)
            case Ended():
                pass

    async def _slow(self) -> None:
        self.entered.set()
        try:
            await asyncio.Event().wait()
        finally:
            # cleanup that itself needs the loop several iterations (until all else blocks)
            await wait_all_tasks_blocked()
            self.cleaned.append("slow")

    def _ended(self, outcome: Outcome[None]) -> Ended:
        return Ended(key=outcome.key)


@pytest.mark.asyncio
async def test_forced_stop_answers_the_in_flight_ask_at_once() -> None:
    """A forced stop fails the ask being handled (and every queued one) with ActorStopped
    within 1 s, instead of leaving it to its timeout."""
    gate = asyncio.Event()
    instance: list[Recorder] = []
    async with ActorSystem(clock=ManualClock()) as system:

        def factory() -> Recorder:
            instance.append(Recorder(gate=gate))
            return instance[-1]

        ref: ActorRef[RecorderMsg] = system.spawn(factory, name="rec")
        in_flight = asyncio.ensure_future(ref.ask(Block(), timeout=600))
        queued = asyncio.ensure_future(ref.ask(Log(), timeout=600))
        await instance[0].entered.wait()
        await asyncio.wait_for(ref.stop(force=True), 1.0)
        with pytest.raises(ActorStopped, match="stopped by force while handling Block"):
            await asyncio.wait_for(in_flight, 1.0)
        with pytest.raises(ActorStopped):
            await asyncio.wait_for(queued, 1.0)
        assert ref.statistics().state == "stopped"


@pytest.mark.asyncio
async def test_a_cancelled_error_in_a_handler_is_a_crash_not_a_zombie() -> None:
    """A stray CancelledError fails its asker, the supervisor restarts the actor, and the
    next ask is answered (before: the task died while the actor still reported running)."""
    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Strays, name="strays")
        with pytest.raises(ActorStopped, match="crashed while handling Stray"):
            await ref.ask(Stray(), timeout=5)
        assert await ref.ask(Ping(), timeout=5) == "pong"
        stats = ref.statistics()
        assert (stats.state, stats.restarts) == ("running", 1)


@pytest.mark.asyncio
async def test_stop_awaits_background_work() -> None:
    """Stopping an actor cancels its work and returns only after the work has ended."""
    cleaned: list[str] = []
    entered = asyncio.Event()
    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(lambda: Worker(cleaned, entered), name="worker")
        await ref.ask(Begin())
        await entered.wait()
        await ref.stop()
        assert cleaned == ["slow"]


@pytest.mark.asyncio
async def test_a_newer_generation_cancels_work_admitted_under_an_older_one() -> None:
    """Deferred work admitted under generation 1 is cancelled by the kernel when the
    generation moves on; its asker gets StaleGeneration (no actor compares by hand)."""

    class Slow(Ask[str], frozen=True, kw_only=True):
        pass

    release = asyncio.Event()

    class Deferring(Actor[Slow]):
        async def receive(self, message: Slow) -> object:
            async def work() -> str:
                await release.wait()
                return "late"

            return self.defer("slow", work)

    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Deferring, name="deferring")
        system.advance_generation()
        pending = asyncio.ensure_future(ref.ask(Slow(), timeout=math.inf))
        await wait_all_tasks_blocked()
        system.advance_generation()
        with pytest.raises(StaleGeneration, match="generation 1"):
            await pending
        release.set()
        assert system.generation == 2


@pytest.mark.asyncio
async def test_asker_adopts_the_generation_its_answer_was_given_in() -> None:
    """An actor that asks the Owner to start a new generation goes on in it: what it sends
    next is stamped with the new generation and is not dropped as stale."""

    class Start(Ask[int], frozen=True, kw_only=True):
        pass

    class Front(Ask[int], frozen=True, kw_only=True):
        pass

    class Owner(Actor[Start]):
        async def receive(self, message: Start) -> int:
            return self.system.advance_generation()

    class Companion(Actor[Front]):
        def __init__(self, owner: ActorRef[Start], sink: ActorRef[RecorderMsg]) -> None:
            self.owner, self.sink = owner, sink

        async def receive(self, message: Front) -> int:
            await self.owner.ask(Start())
            self.sink.tell(Put(sender="companion", seq=self.admitted))
            return self.admitted

    async with ActorSystem(clock=ManualClock()) as system:
        sink: ActorRef[RecorderMsg] = system.spawn(Recorder, name="sink")
        owner = system.spawn(Owner, name="owner")
        front = system.spawn(lambda: Companion(owner, sink), name="front")
        assert await front.ask(Front()) == 1
        assert await sink.ask(Log()) == [("companion", 1)]
        assert sink.statistics().dropped_stale == 0
