"""Every ask answered, every task owned (docs/actors.md, rules 3, 4, 7, 8 and "Links").

Each test here names a way an asker used to wait for its timeout, a task nobody owned, or a
partner's crash read as a refusal, and fails on the kernel before this was fixed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from persona_mind.actors import Actor, ActorSystem, fan_out
from persona_mind.actors.kernel import _work
from persona_mind.errors import ActorStopped, FanOutFailed
from persona_mind.testing import ManualClock, restarted, wait_all_tasks_blocked
from tests.actors._fixtures import Log
from tests.actors.test_restart_contracts import crash_once

BOUND = 1.0  # seconds of real time an answer may take: a bound on a hang, never a sleep


class Escape(BaseException):
    """Not an Exception, not fatal (a stand-in for GeneratorExit or a library's own)."""


@pytest.mark.asyncio
async def test_deferred_work_raising_a_base_exception_answers_its_asker_at_once() -> None:
    """The asker gets ``ActorStopped`` (the BaseException as its cause) within 1 s, before
    the exception aborts the incarnation; the actor restarts."""
    gate = asyncio.Event()

    class Deferring(Actor[Log]):
        async def receive(self, message: Log) -> object:
            async def work() -> list[tuple[str, object]]:
                await gate.wait()
                raise Escape("escaped the work wrapper")

            return self.defer("escaping", work)

    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Deferring, name="deferring")
        asking = asyncio.ensure_future(ref.ask(Log(), timeout=600))
        await wait_all_tasks_blocked()
        gate.set()
        async with asyncio.timeout(BOUND):
            with pytest.raises(ActorStopped, match="raised Escape") as raised:
                await asking
        assert isinstance(raised.value.__cause__, Escape)
        await restarted(ref)


@pytest.mark.asyncio
async def test_the_end_of_an_incarnation_fails_every_outstanding_deferred() -> None:
    """A stop answers a ``defer`` whose work ignores its cancellation (it may take up to
    ``STOP_GRACE`` to end) at once with ``ActorStopped``, and still awaits the work; a
    ``promise`` nobody settled is failed once ``on_stop`` had its chance to answer it."""
    started, release, ended = asyncio.Event(), asyncio.Event(), asyncio.Event()

    class Many(Actor[Log]):
        async def receive(self, message: Log) -> object:
            if self.work_keys():
                return self.promise("never-settled")

            async def stubborn() -> list[tuple[str, object]]:
                started.set()
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    await release.wait()  # cleanup that outlasts the cancellation
                finally:
                    ended.set()
                return []

            return self.defer("stubborn", stubborn)

    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(Many, name="many")
        deferred = asyncio.ensure_future(ref.ask(Log(), timeout=600))
        await started.wait()
        promised = asyncio.ensure_future(ref.ask(Log(), timeout=600))
        await wait_all_tasks_blocked()
        stopping = asyncio.ensure_future(ref.stop())
        async with asyncio.timeout(BOUND):
            with pytest.raises(ActorStopped, match="stopped before answering"):
                await deferred
        assert not ended.is_set()
        assert not stopping.done()
        release.set()
        await stopping
        assert ended.is_set()
        with pytest.raises(ActorStopped, match="stopped before answering"):
            await promised


@pytest.mark.asyncio
async def test_a_fan_out_leg_that_ignores_cancellation_ends_within_the_stop_grace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A leg that catches its cancellation and waits on: after ``STOP_GRACE`` its own scope
    is cancelled, so the fan-out raises instead of waiting for it forever."""
    monkeypatch.setattr(_work, "STOP_GRACE", 0.05, raising=False)
    ended = asyncio.Event()

    async def stubborn() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            try:
                await asyncio.Event().wait()  # ignores the cancellation
            finally:
                ended.set()
        return "never"

    async def failing() -> str:
        await wait_all_tasks_blocked()
        raise RuntimeError("first leg fails")

    async with asyncio.timeout(BOUND):
        with pytest.raises(FanOutFailed, match="'failing'"):
            await fan_out({"stubborn": stubborn, "failing": failing}, timeout=60)
    assert ended.is_set()  # it ended: not left behind


@pytest.mark.asyncio
async def test_a_base_exception_leg_is_a_typed_fan_out_failure() -> None:
    """Not a bare ``BaseExceptionGroup``: ``FanOutFailed`` naming the leg, the exception
    as its cause, the sibling cancelled and awaited."""
    cancelled = asyncio.Event()

    async def escaping() -> str:
        raise Escape("a leg's BaseException")

    async def sibling() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    with pytest.raises(FanOutFailed, match="'escaping'") as raised:
        await fan_out({"escaping": escaping, "sibling": sibling}, timeout=60)
    assert isinstance(raised.value.__cause__, Escape)
    assert cancelled.is_set()


@pytest.mark.asyncio
async def test_actor_loops_and_escalations_are_children_of_the_systems_task_group() -> None:
    """No actor task outlives the system and none is a bare task: each is a child of the
    system's task group, whose hosting task is the only one the kernel creates itself."""
    async with ActorSystem(clock=ManualClock()) as system:
        system.spawn(_Echo, name="echo")
        await wait_all_tasks_blocked()
        host = system.tasks._host
        assert host is not None
        assert not host.done()
        loops = [t for t in asyncio.all_tasks() if t.get_name() == "actor:echo"]
        assert len(loops) == 1
    assert host.done()
    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("actor:")] == []


class _Echo(Actor[Log]):
    async def receive(self, message: Log) -> object:
        return []


# -- links: an Owner crash restarts the Companion, which resyncs --------------------------


async def _session(tmp_path: Path):  # type: ignore[no-untyped-def]
    from persona_mind.testing._simhost import SimHost  # noqa: PLC0415

    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    return SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock())


async def _counts(host: object) -> tuple[int, int]:
    """(the Companion's Persona view of the user-message count, the Owner's)."""
    from persona_mind.messages.owner import GetPersonaSession  # noqa: PLC0415
    from tests._features import details  # noqa: PLC0415

    runtime = host.runtime  # type: ignore[attr-defined]
    seen = await details(runtime, "persona")  # behind a restarted incarnation's on_start
    held = await runtime.owner_ref.ask(GetPersonaSession())
    return seen["user_messages"], held.user_messages


@pytest.mark.asyncio
async def test_an_owner_crash_mid_turn_restarts_the_companion_and_its_next_turn_sees_the_owner(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The Owner crashes on the Persona session a turn's ``Input`` sends it. The Companion
    must not carry on with the count it had applied but the Owner never stored: it
    crashes (a partner's ``ActorStopped`` is no refusal), restarts and resyncs, so its
    view is the Owner's and the next turn counts on from there."""
    from persona_mind.actors.owner import OwnerActor  # noqa: PLC0415
    from persona_mind.messages.host import Input  # noqa: PLC0415
    from persona_mind.messages.owner import PutPersonaSession  # noqa: PLC0415

    armed: list[bool] = []
    crash_once(monkeypatch, OwnerActor, lambda m: isinstance(m, PutPersonaSession) and bool(armed))
    async with await _session(tmp_path) as host:
        await host.start()
        await host.turn("first")
        assert await _counts(host) == (1, 1)
        armed.append(True)
        with pytest.raises(ActorStopped):
            await host.runtime.event(Input(text="second"))  # the Owner crashes mid-turn
        await restarted(host.runtime.owner_ref)
        await restarted(host.runtime.companion)
        assert await _counts(host) == (1, 1)  # the half-applied count is gone
        turn = await host.turn("third")
        assert turn.injection is not None
        assert await _counts(host) == (2, 2)


@pytest.mark.asyncio
async def test_an_owner_crash_elsewhere_restarts_the_linked_companion(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An Owner crash the Companion took no part in restarts it too (the link); a turn sent
    right after it waits for the restart instead of failing, and the restarted Companion's
    features recovered the Owner's session."""
    from persona_mind.actors.owner import OwnerActor  # noqa: PLC0415
    from persona_mind.messages.owner import SetWorkspace  # noqa: PLC0415

    crash_once(monkeypatch, OwnerActor, lambda m: isinstance(m, SetWorkspace) and m.cwd == "/boom")
    async with await _session(tmp_path) as host:
        await host.start()
        await host.turn("first")
        from tests._features import reports  # noqa: PLC0415

        before = [r.serial for r in await reports(host.runtime)]
        with pytest.raises(ActorStopped):
            await host.runtime.owner_ref.ask(SetWorkspace(cwd="/boom"))
        turn = await host.turn("second")  # queued behind the restart: kept, not failed
        assert turn.injection is not None
        stats = await restarted(host.runtime.companion)
        assert stats.restarts == 1
        after = [r.serial for r in await reports(host.runtime)]
        assert not any(n == o for n, o in zip(after, before, strict=True))  # built anew
        assert await _counts(host) == (2, 2)


@pytest.mark.asyncio
async def test_index_builds_and_retirements_are_store_jobs_not_domain_tasks(
    tmp_path: Path,
) -> None:
    """A turn after a remember rebuilds the tier's index and retires the old one: both run
    as the Store's ``RunIO`` jobs, and no task is created for them (every task created in
    the session is the kernel's: an actor loop, a work group's child, an escalation)."""
    from persona_mind.messages.store import RunIO  # noqa: PLC0415

    loop = asyncio.get_running_loop()
    created: list[str] = []
    previous = loop.get_task_factory()

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        created.append(getattr(coro, "__qualname__", repr(coro)))
        return asyncio.Task(coro, loop=loop, **kwargs)

    loop.set_task_factory(factory)
    try:
        async with await _session(tmp_path) as host:
            await host.start()
            saved = await host.call_tool(
                "memory", {"action": "remember", "kind": "note", "text": "Deploys on Tuesdays"}
            )
            assert not saved.is_error, saved.text
            jobs: list[str] = []
            store: Any = host.runtime.store
            store = store.ref._cell
            real = store.actor.receive

            async def receive(message: object) -> object:
                if isinstance(message, RunIO):
                    jobs.append(message.purpose)
                return await real(message)

            store.actor.receive = receive
            await host.turn("when do we deploy")
            again = await host.call_tool(
                "memory", {"action": "remember", "kind": "note", "text": "Freeze on Fridays"}
            )
            assert not again.is_error, again.text
            turn = await host.turn("when do we deploy and freeze")
            assert "Freeze on Fridays" in turn.system_prompt
            await wait_all_tasks_blocked()
    finally:
        loop.set_task_factory(previous)
    assert not [name for name in created if "IndexCache" in name]
    assert "build a fact index" in jobs
    assert "retire a fact index" in jobs
