"""Restart contracts (docs/actors.md): each actor crashed mid-work keeps exactly what its
contract says, loses the rest, and answers every pending ask.

A crash is injected by patching the actor class's ``receive`` to raise once on a marker
message — the kernel then restarts the actor under its supervisor like any other crash.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.child_runner import ChildRunner, run_child
from persona_mind.actors.host_proxy import HostClient, HostProxy
from persona_mind.actors.reminder import ReminderActor
from persona_mind.actors.store import StoreActor, spawn_store
from persona_mind.errors import ActorStopped, ChildError, PersonaMindError
from persona_mind.messages.host import DisplayMessage
from persona_mind.messages.reminder import ArmReminders, CancelReminders, GetReminderState
from persona_mind.messages.runner import ListChildren
from persona_mind.messages.store import Read
from persona_mind.storage import Layout, StoreTarget
from persona_mind.testing import ManualClock, restarted, wait_all_tasks_blocked
from persona_mind.testing._scripted import ScriptedModel
from tests.children._helpers import request
from tests.mind.test_reminder import item


def crash_once(
    monkeypatch: pytest.MonkeyPatch, cls: type, when: Callable[[object], bool]
) -> list[int]:
    """Make ``cls.receive`` raise once for the first message ``when`` accepts."""
    real: Callable[[Any, object], Awaitable[object]] = cls.receive  # type: ignore[attr-defined]
    crashed: list[int] = []

    async def receive(self: Any, message: object) -> object:
        if not crashed and when(message):
            crashed.append(1)
            raise RuntimeError("crashed mid-work (injected)")
        return await real(self, message)

    monkeypatch.setattr(cls, "receive", receive)
    return crashed


@pytest.mark.asyncio
async def test_reminder_keeps_what_it_showed_and_loses_its_timers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = ManualClock()
    shown: list[DisplayMessage] = []

    async def display(message: DisplayMessage) -> None:
        shown.append(message)

    now = clock.wall()
    items = (item(1, now - 1), item(2, now + 60))  # b_1 is due now, b_2 in a minute
    crash_once(monkeypatch, ReminderActor, lambda m: isinstance(m, CancelReminders))
    async with ActorSystem(clock=clock) as system:
        ref = system.spawn(lambda: ReminderActor(display), name="reminder")
        ref.tell(ArmReminders(items=items))
        before = await ref.ask(GetReminderState())
        assert (len(shown), before.pending) == (1, (("b_2", now + 60),))
        ref.tell(CancelReminders())  # the crash
        with pytest.raises(ActorStopped):  # queued behind the crash: answered, not hung
            await ref.ask(GetReminderState())
        await restarted(ref)
        after = await ref.ask(GetReminderState())
        assert ref.statistics().restarts == 1
        assert after.delivered == before.delivered  # kept: never replayed
        assert after.pending == ()  # lost: timers belong to the dead instance
        ref.tell(ArmReminders(items=items))  # the next maintenance re-arm
        assert (await ref.ask(GetReminderState())).pending == (("b_2", now + 60),)
        assert len(shown) == 1  # b_1 was not shown a second time
        clock.advance(60)
        await ref.ask(GetReminderState())
        assert len(shown) == 2


@pytest.mark.asyncio
async def test_child_runner_crash_stops_its_children_and_answers_their_askers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = ManualClock()
    model = ScriptedModel(clock).on(hang=True)
    crashed = crash_once(monkeypatch, ChildRunner, lambda m: isinstance(m, ListChildren))
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        child = asyncio.ensure_future(run_child(runner, request(rid="mid-work")))
        await model.wait_calls(1)
        with pytest.raises(ActorStopped):
            await runner.ask(ListChildren())  # the crash, with a child running
        with pytest.raises(PersonaMindError):  # answered (ChildCancelled / ActorStopped)
            await asyncio.wait_for(child, 5)
        await restarted(runner)
        assert crashed
        assert model.cancelled == ["mid-work"]  # the child was stopped, not orphaned
        assert await runner.ask(ListChildren()) == ()  # the new incarnation starts empty


@pytest.mark.asyncio
async def test_store_crash_loses_nothing_on_disk(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    layout = Layout(tmp_path / "agent")
    target = StoreTarget(path=layout.project("p"), entry_type=dict)
    marker = StoreTarget(path=layout.project("marker"), entry_type=dict)
    crash_once(monkeypatch, StoreActor, lambda m: isinstance(m, Read) and m.target == marker)
    async with ActorSystem(clock=ManualClock()) as system:
        store = spawn_store(system, layout)
        await store.mutate(target, lambda rows: (*rows, {"id": "kept"}))
        with pytest.raises(ActorStopped):
            await store.read(marker)
        await restarted(store.ref)
        snap = await store.read(target)  # engine and IO thread rebuilt at the next IO
        assert snap is not None
        assert snap.entries == ({"id": "kept"},)
        assert store.ref.statistics().restarts == 1


@pytest.mark.asyncio
async def test_host_proxy_crash_fails_its_pending_asks_and_serves_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.runtime.test_host_proxy import Recording  # noqa: PLC0415

    port = Recording()
    from persona_mind.messages.host_proxy import Notify  # noqa: PLC0415

    crash_once(monkeypatch, HostProxy, lambda m: isinstance(m, Notify) and m.text == "boom")
    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(lambda: HostProxy(port), name="host-proxy")
        host = HostClient(ref)
        await host.notify("before")
        await host.flush()
        await host.notify("boom")  # told: the crash reaches nobody's ask
        await host.notify("after")  # queued behind the crash: lost with the instance
        with pytest.raises(ActorStopped):
            await host.flush()
        await restarted(ref)
        await host.notify("served again")
        await host.flush()
        assert port.seen == ["notify:before", "notify:served again"]
        assert ref.statistics().restarts == 1


@pytest.mark.asyncio
async def test_roundtable_desk_crash_cancels_the_run_and_admits_a_new_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from persona_mind.actors.roundtable_desk import RoundtableDesk  # noqa: PLC0415
    from persona_mind.messages.roundtable_desk import (  # noqa: PLC0415
        RoundtableStatus,
        StartRoundtable,
    )
    from tests.children.test_tool_and_run import TEAM  # noqa: PLC0415

    clock = ManualClock()
    model = ScriptedModel(clock).on(hang=True)
    crash_once(monkeypatch, RoundtableDesk, lambda m: isinstance(m, RoundtableStatus))
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        desk = system.spawn(lambda: RoundtableDesk(lambda: runner), name="roundtables")
        start = StartRoundtable(team=TEAM, query="Q?", model="m")
        run = asyncio.ensure_future(desk.ask(start, timeout=math.inf))
        await model.wait_calls(1)
        with pytest.raises(ActorStopped):
            await desk.ask(RoundtableStatus())  # the crash, mid-run
        with pytest.raises((ActorStopped, ChildError)):
            await asyncio.wait_for(run, 5)
        await restarted(desk)
        await wait_all_tasks_blocked()  # the cancelled run's children have unwound
        assert await runner.ask(ListChildren()) == ()  # the run's children were stopped
        status = await desk.ask(RoundtableStatus())
        assert (status.running, status.progress) == (False, None)
        second = asyncio.ensure_future(desk.ask(start, timeout=math.inf))
        await wait_all_tasks_blocked()  # everything in-loop: the second run started or failed
        assert not second.done(), second.exception()
        assert len(model.calls) >= 2  # e.g. a reused coordinator name
        assert (await desk.ask(RoundtableStatus())).running  # admitted again
        second.cancel()
        await asyncio.gather(second, return_exceptions=True)


async def _persona_session(host: Any) -> tuple[str, str]:
    """Bind the software team, use the architect, save a session note, show a plan: the
    state a Companion crash must not lose. Returns (the plan id, the persona's section)."""
    from tests.integration.conftest import bind_team  # noqa: PLC0415

    await bind_team(host)
    used = await host.command("/persona use architect")
    assert used.level == "info", used.text
    note = {
        "action": "remember",
        "kind": "note",
        "text": "Checkpoint: schema v2",
        "tier": "session",
    }
    saved = await host.call_tool("memory", note)
    assert not saved.is_error, saved.text
    plan = await host.call_tool("persona_pack", {"action": "install", "pack": "philosopher-7"})
    assert not plan.is_error, plan.text
    turn = await host.turn("continue with the schema")
    assert "Checkpoint: schema v2" in turn.system_prompt
    return str((plan.details or {})["planId"]), turn.injection.sections[0]


async def _resumes(host: Any, plan_id: str, section: str) -> None:
    """What a resumed session must still do: the same persona, the note, the plan (its
    user-message count kept: the reply already came before the crash)."""
    from persona_mind.messages.companion import Describe  # noqa: PLC0415
    from tests._features import details  # noqa: PLC0415

    await host.runtime.companion.ask(Describe())  # queued behind the new incarnation's start
    assert (await details(host.runtime, "persona"))["active"] == "architect"
    assert (await host.runtime.owner()).active_persona == "official/software-team/architect"
    confirmed = await host.call_tool("persona_pack", {"action": "confirm", "planId": plan_id})
    assert not confirmed.is_error, confirmed.text  # "needs the user's reply" if counts were lost
    turn = await host.turn("continue with the schema")
    assert section in turn.system_prompt
    assert "Checkpoint: schema v2" in turn.system_prompt


@pytest.mark.asyncio
async def test_companion_crash_mid_turn_rebuilds_its_features_from_the_owner(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The Companion's contract (issue 10 scope 4): it holds no one else's state. A crash
    mid-turn fails that turn's ask; the new incarnation gets features built from scratch,
    which recover the session from the Owner (active persona, team snapshot in use, the
    user-message count, the plans) and the notes from the branch."""
    from persona_mind.actors.companion import CompanionActor  # noqa: PLC0415
    from persona_mind.messages.host import BeforeAgentStart, Input  # noqa: PLC0415
    from persona_mind.testing._simhost import SimHost  # noqa: PLC0415
    from tests._features import reports  # noqa: PLC0415

    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    armed: list[bool] = []
    crash_once(
        monkeypatch, CompanionActor, lambda m: isinstance(m, BeforeAgentStart) and bool(armed)
    )
    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock()) as host:
        await host.start()
        plan_id, section = await _persona_session(host)
        old = await reports(host.runtime)
        await host.runtime.event(Input(text="yes, install it"))  # the reply the plan needs
        armed.append(True)
        with pytest.raises(ActorStopped, match="crashed while handling BeforeAgentStart"):
            await host.runtime.event(BeforeAgentStart(prompt="go", system_prompt="base"))
        await restarted(host.runtime.companion)
        new = await reports(host.runtime)
        assert [f.name for f in new] == [f.name for f in old]
        assert not {n.serial for n in new} & {o.serial for o in old}  # rebuilt, not reused
        await _resumes(host, plan_id, section)


@pytest.mark.asyncio
async def test_the_owner_keeps_the_persona_session_across_its_own_crash(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The Owner's contract: the Persona session and the plans are checkpointed, so after
    an Owner crash *and then* a Companion crash the session still resumes whole."""
    from persona_mind.actors.companion import CompanionActor  # noqa: PLC0415
    from persona_mind.actors.owner import OwnerActor  # noqa: PLC0415
    from persona_mind.messages.companion import Describe  # noqa: PLC0415
    from persona_mind.messages.host import Input  # noqa: PLC0415
    from persona_mind.messages.owner import SetWorkspace  # noqa: PLC0415
    from persona_mind.testing._simhost import SimHost  # noqa: PLC0415

    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    armed: list[bool] = []
    crash_once(monkeypatch, OwnerActor, lambda m: isinstance(m, SetWorkspace) and m.cwd == "/boom")
    crash_once(monkeypatch, CompanionActor, lambda m: isinstance(m, Describe) and bool(armed))
    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock()) as host:
        await host.start()
        plan_id, section = await _persona_session(host)
        await host.runtime.event(Input(text="yes, install it"))
        with pytest.raises(ActorStopped):
            await host.runtime.owner_ref.ask(SetWorkspace(cwd="/boom"))
        await restarted(host.runtime.owner_ref)
        armed.append(True)
        with pytest.raises(ActorStopped):
            await host.runtime.companion.ask(Describe())
        await restarted(host.runtime.companion)
        await _resumes(host, plan_id, section)


@pytest.mark.asyncio
async def test_a_companion_crash_keeps_the_notes_budget_of_other_branches(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """M-SESSION-NOTES-4 across a Companion restart: a note saved on a branch the session
    then left still counts toward the lifetime budget, because the Owner holds the tally
    (this session has no file to recount it from)."""
    from persona_mind.actors.companion import CompanionActor  # noqa: PLC0415
    from persona_mind.messages.companion import Describe  # noqa: PLC0415
    from persona_mind.messages.owner import GetNotesTally  # noqa: PLC0415
    from persona_mind.testing._simhost import SimHost  # noqa: PLC0415
    from tests._features import details  # noqa: PLC0415
    from tests.integration.conftest import bind_team  # noqa: PLC0415

    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    armed: list[bool] = []
    crash_once(monkeypatch, CompanionActor, lambda m: isinstance(m, Describe) and bool(armed))
    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock()) as host:
        await host.start()
        await bind_team(host)
        await host.command("/persona use architect")
        kept = len(host.session.branch)
        note = {"action": "remember", "kind": "note", "text": "Left behind", "tier": "session"}
        saved = await host.call_tool("memory", note)
        assert not saved.is_error, saved.text
        await host.move_branch(keep=kept)  # the note's branch is left
        mind = await details(host.runtime, "mind")
        assert (mind["lifetime_events"], mind["notes"]) == (1, 0)
        tally = await host.runtime.owner_ref.ask(GetNotesTally())
        assert tally is not None
        assert len(tally.seen) == 1
        armed.append(True)
        with pytest.raises(ActorStopped):
            await host.runtime.companion.ask(Describe())
        await restarted(host.runtime.companion)
        await host.runtime.companion.ask(Describe())  # behind the new incarnation's start
        mind = await details(host.runtime, "mind")
        assert (mind["lifetime_events"], mind["notes"]) == (1, 0)  # counted, not active
        turn = await host.turn("what did we leave behind?")
        assert "Left behind" not in turn.system_prompt


@pytest.mark.asyncio
async def test_a_companion_crash_mid_session_start_opens_the_new_session_on_restart(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A crash after the Owner started the new session but before the Persona half stored
    it: the rebuilt features open the session the Owner holds (not the old one), so the
    Persona half is ready and Mind binds to it."""
    from persona_mind.features._persona import PersonaFeature  # noqa: PLC0415
    from persona_mind.messages.companion import Describe  # noqa: PLC0415
    from persona_mind.messages.host import SessionStart  # noqa: PLC0415
    from persona_mind.testing._simhost import SimHost  # noqa: PLC0415
    from tests._features import details  # noqa: PLC0415

    real = PersonaFeature._on_event
    crashed: list[str] = []

    async def crash_on_new(self: PersonaFeature, event: object) -> object:
        if isinstance(event, SessionStart) and event.reason == "new" and not crashed:
            crashed.append(event.session_id)
            raise RuntimeError("crashed mid session start (injected)")
        return await real(self, event)  # type: ignore[arg-type]

    monkeypatch.setattr(PersonaFeature, "_on_event", crash_on_new)
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock()) as host:
        await host.start()
        old_session = host.session.session_id
        with pytest.raises(ActorStopped):
            await host.start("new")
        assert crashed == [host.session.session_id] != [old_session]
        await restarted(host.runtime.companion)
        tools, _ = await host.runtime.companion.ask(Describe())
        persona = await details(host.runtime, "persona")
        assert persona["ready"]
        assert persona["session_id"] == host.session.session_id
        assert {"persona_pack", "memory"} <= {t.name for t in tools}
        saved = await host.call_tool(
            "memory", {"action": "remember", "kind": "convention", "text": "Tabs in Makefiles."}
        )
        assert not saved.is_error, saved.text
