"""Background work lives in the incarnation's anyio task group (issue 10 scope 6).

The group makes "stop awaits the work" structural: an incarnation cannot end while a
piece of its work is alive, even one that swallows the kernel's first cancellation. The
kernel still cancels each piece of work *once* (asyncio style), so a cleanup that awaits
is not cut short — the group's own level-triggered scope only finishes work that outlived
the grace.
"""

from __future__ import annotations

import asyncio
from typing import assert_never

import pytest

from persona_mind.actors import Actor, ActorSystem, Outcome
from persona_mind.actors.kernel import _work
from persona_mind.errors import ActorError, ActorStopped
from persona_mind.messages._base import Ask, Msg
from persona_mind.testing import ManualClock, restarted, wait_all_tasks_blocked


class Begin(Ask[None], frozen=True, kw_only=True):
    key: str = "w"


class Boom(Ask[None], frozen=True, kw_only=True):
    pass


class Done(Msg, frozen=True, kw_only=True):
    key: str


class Stubborn(Actor[Begin | Boom | Done]):
    """Starts work that swallows the first cancellation and then waits forever."""

    def __init__(self, log: list[str], entered: asyncio.Event) -> None:
        self.log = log
        self.entered = entered

    async def receive(self, message: Begin | Boom | Done) -> None:
        match message:
            case Begin(key=key):
                self.start_work(key, self._stubborn, self._done)
            case Boom():
                raise RuntimeError("boom")
            case Done():
                self.log.append(f"outcome {message.key}")

    async def _stubborn(self) -> None:
        self.entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.log.append("first cancel swallowed")
        try:
            await asyncio.Event().wait()  # ignores the kernel's one cancellation
        finally:
            self.log.append("ended")

    def _done(self, outcome: Outcome[None]) -> Done:
        return Done(key=outcome.key)


@pytest.mark.asyncio
async def test_stop_does_not_return_while_work_that_ignored_cancellation_lives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After the grace, the stubborn work's own cancel scope is cancelled and the stop
    awaits it: stop returns only once it ended (before: stop gave up after the grace and
    the task leaked)."""
    monkeypatch.setattr(_work, "STOP_GRACE", 0.01)  # the kernel's real-time bound, shortened
    log: list[str] = []
    entered = asyncio.Event()
    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(lambda: Stubborn(log, entered), name="stubborn")
        await ref.ask(Begin())
        await entered.wait()
        await ref.stop()
        assert log == ["first cancel swallowed", "ended"]  # no outcome: the instance is gone
        assert [t for t in asyncio.all_tasks() if "stubborn" in t.get_name()] == []


@pytest.mark.asyncio
async def test_a_crash_awaits_the_old_incarnations_work_before_the_restart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The restarted instance never runs beside work of the crashed one."""
    monkeypatch.setattr(_work, "STOP_GRACE", 0.01)
    log: list[str] = []
    entered = asyncio.Event()
    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(lambda: Stubborn(log, entered), name="stubborn")
        await ref.ask(Begin())
        await entered.wait()
        with pytest.raises(ActorStopped, match="crashed while handling Boom"):
            await ref.ask(Boom())
        await restarted(ref)
        assert log == ["first cancel swallowed", "ended"]
        await wait_all_tasks_blocked()
        assert log == ["first cancel swallowed", "ended"]  # its outcome never arrives


class Slow(Ask[str], frozen=True, kw_only=True):
    pass


class Twice(Actor[Slow]):
    """Defers under a fixed key: a second ask while the first runs is a clear error."""

    async def receive(self, message: Slow) -> object:
        async def work() -> str:
            await asyncio.Event().wait()
            return "never"

        return self.defer("one", work)


@pytest.mark.asyncio
async def test_work_key_in_use_is_refused_and_the_actor_lives() -> None:
    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Twice, name="twice")
        first = asyncio.ensure_future(ref.ask(Slow()))
        await wait_all_tasks_blocked()
        with pytest.raises(ActorError, match="already runs work 'one'"):
            await ref.ask(Slow())
        assert ref.is_alive()
        await ref.stop()
        with pytest.raises(ActorStopped, match="cancelled"):
            await first


@pytest.mark.asyncio
async def test_work_is_refused_outside_a_running_incarnation() -> None:
    """Work belongs to an incarnation's group: none can start once the actor stopped."""
    async with ActorSystem(clock=ManualClock()) as system:
        instance: list[Stubborn] = []

        def factory() -> Stubborn:
            instance.append(Stubborn([], asyncio.Event()))
            return instance[-1]

        ref = system.spawn(factory, name="stubborn")
        await ref.stop()

        async def nothing() -> None:
            return None

        with pytest.raises(ActorError, match="is not running"):
            instance[0].start_work("late", nothing)


class StartAndCancel(Ask[None], frozen=True, kw_only=True):
    pass


class Eager(Actor[StartAndCancel | Done]):
    """Starts work and cancels it in the same handler, before the work ever ran."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def receive(self, message: StartAndCancel | Done) -> None:
        match message:
            case StartAndCancel():

                async def work() -> None:
                    self.log.append("ran")

                self.start_work("w", work, lambda outcome: Done(key=type(outcome).__name__))
                assert self.cancel_work("w", "changed my mind")
            case Done(key=kind):
                self.log.append(kind)


@pytest.mark.asyncio
async def test_work_cancelled_before_its_first_step_never_runs_and_reports_cancelled() -> None:
    log: list[str] = []
    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(lambda: Eager(log), name="eager")
        await ref.ask(StartAndCancel())
        await wait_all_tasks_blocked()
        assert log == ["Cancelled"]
        await ref.ask(StartAndCancel())  # the key is free again
        await wait_all_tasks_blocked()
        assert log == ["Cancelled", "Cancelled"]


class Ping(Ask[str], frozen=True, kw_only=True):
    pass


@pytest.mark.asyncio
async def test_work_started_by_a_failing_on_start_is_cancelled_and_awaited() -> None:
    """on_start that starts work and then fails is a crash of that incarnation: its work
    ends before the next incarnation starts (before: it was never cancelled and ran on
    beside every later incarnation)."""
    log: list[str] = []
    attempts: list[int] = []

    class Flaky(Actor[Ping]):
        async def on_start(self) -> None:
            attempts.append(len(attempts) + 1)
            n = attempts[-1]

            async def watch() -> None:
                try:
                    await asyncio.Event().wait()
                finally:
                    log.append(f"work {n} ended")

            self.start_work("watch", watch)
            await wait_all_tasks_blocked()  # the work is running
            if n == 1:
                raise RuntimeError("first start fails")

        async def receive(self, message: Ping) -> str:
            return f"{sorted(self.work_keys())} after {log}"

    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Flaky, name="flaky")
        await restarted(ref)
        assert await ref.ask(Ping()) == "['watch'] after ['work 1 ended']"
        await ref.stop()
    assert log == ["work 1 ended", "work 2 ended"]


@pytest.mark.asyncio
async def test_an_on_done_that_raises_is_logged_and_the_actor_lives(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A bug in handing over an outcome never cancels the actor's loop or its other work
    (a child failing inside a task group would cancel the group's owner)."""

    class Buggy(Actor[Ping]):
        async def receive(self, message: Ping) -> str:
            async def quick() -> None:
                return None

            def on_done(outcome: Outcome[None]) -> Ping:
                raise ValueError("bug in on_done")

            self.start_work("quick", quick, on_done)
            return "started"

    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Buggy, name="buggy")
        assert await ref.ask(Ping()) == "started"
        await wait_all_tasks_blocked()
        assert await ref.ask(Ping()) == "started"  # alive, same incarnation
        assert ref.statistics().restarts == 0
    assert "handing over the outcome of work 'quick' failed" in caplog.text


class Escape(BaseException):
    """Not an Exception, not fatal: escapes the work wrapper (as GeneratorExit could)."""


@pytest.mark.asyncio
async def test_a_base_exception_escaping_work_is_a_crash_and_the_actor_restarts() -> None:
    class Leaky(Actor[Ping]):
        async def receive(self, message: Ping) -> str:
            async def leak() -> None:
                raise Escape

            if not self.recovered:
                self.checkpoint("leaked once")
                self.start_work("leak", leak)
            return "pong"

    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Leaky, name="leaky")
        assert await ref.ask(Ping()) == "pong"
        await restarted(ref)
        assert await ref.ask(Ping()) == "pong"
        assert ref.statistics().restarts == 1


@pytest.mark.asyncio
async def test_a_deferred_ask_queued_behind_a_leaking_sibling_is_answered_not_hung() -> None:
    """A sibling raising past its wrapper aborts the anyio group before the deferred work
    took its first step. anyio starts such a child and cancels it at its first await, so the
    wrapper still settles it: the asker gets ``ActorStopped``, never a hang (issue 10 scope 6)."""
    ran: list[str] = []

    class Two(Actor[Ping]):
        async def receive(self, message: Ping) -> object:
            async def leak() -> None:
                raise Escape

            async def slow() -> str:
                ran.append("slow started")
                await asyncio.Event().wait()  # cancelled by the aborted group
                return "never"

            if self.recovered:
                return "restarted"
            self.checkpoint("leaked once")
            self.start_work("leak", leak)  # started first: it raises before slow runs
            return self.defer("slow", slow)

    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Two, name="two")
        with pytest.raises(ActorStopped):
            await ref.ask(Ping())
        await restarted(ref)
        assert await ref.ask(Ping()) == "restarted"
        assert ran == ["slow started"]  # it ran up to its first await, then was cancelled
        assert [t for t in asyncio.all_tasks() if "two:" in t.get_name()] == []


@pytest.mark.asyncio
async def test_an_asker_woken_by_a_crash_reads_the_restart_and_restarted_waits_for_on_start() -> (
    None
):
    """The supervisor decides before the work group's exit yields (anyio checkpoints there):
    the failed asker already reads ``restarts == 1``, and the actor reads ``starting`` until
    the new incarnation's on_start has finished — ``restarted`` waits for that."""
    gate = asyncio.Event()
    starts: list[int] = []

    class Slow(Actor[Boom | Ping]):
        async def on_start(self) -> None:
            starts.append(len(starts) + 1)
            if len(starts) > 1:
                await gate.wait()  # the second incarnation starts slowly

        async def receive(self, message: Boom | Ping) -> object:
            match message:
                case Boom():
                    raise RuntimeError("boom")
                case Ping():
                    return f"incarnation {len(starts)}"
                case _:
                    assert_never(message)

    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Slow, name="slow")
        assert await ref.ask(Ping()) == "incarnation 1"
        with pytest.raises(ActorStopped, match="crashed while handling Boom"):
            await ref.ask(Boom())
        stats = ref.statistics()
        assert (stats.restarts, stats.state) == (1, "starting")
        await wait_all_tasks_blocked()
        assert ref.statistics().state == "starting"  # on_start still waits on the gate
        gate.set()
        assert (await restarted(ref)).state == "running"
        assert await ref.ask(Ping()) == "incarnation 2"
