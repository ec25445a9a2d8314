"""Generations stamped by the runtime (issue 10 acceptance), on the real product runtime.

Every actor drops a message stamped with a replaced generation before its handler runs,
and ``persona-mind trace --summary`` counts the drops per actor; the Owner's restart keeps
the generation, the workspace and its subscribers.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from persona_mind.actors import ActorRef
from persona_mind.cli import main as cli_main
from persona_mind.errors import ActorStopped, StaleGeneration
from persona_mind.messages.companion import Describe
from persona_mind.messages.owner import GetOwner, OwnerChanged, OwnerMsg, SetWorkspace, Subscribe
from persona_mind.messages.reminder import GetReminderState
from persona_mind.messages.runner import ListChildren
from persona_mind.messages.store import Read
from persona_mind.storage import Layout, StoreTarget
from persona_mind.testing import ManualClock, TestProbe
from persona_mind.testing._scripted import ScriptedModel
from persona_mind.testing._simhost import SimHost


def _summary(trace: Path) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(["trace", str(trace), "--summary", "--json"]) == 0
    summary: dict[str, Any] = json.loads(out.getvalue())
    return summary


@pytest.mark.asyncio
async def test_a_stale_message_to_each_actor_is_dropped_and_counted(
    tmp_path: Path, workspace: Path
) -> None:
    """Owner, Companion, Store, Reminder and ChildRunner all drop generation-1 work once
    generation 2 started; the asker gets StaleGeneration; the trace summary counts it."""
    clock = ManualClock()
    trace = tmp_path / "trace.jsonl"
    async with SimHost(
        agent_dir=tmp_path / "agent",
        cwd=workspace,
        clock=clock,
        trace_path=trace,
        child_backend=ScriptedModel(clock),
    ) as host:
        await host.start()
        runtime = host.runtime
        old = (await runtime.owner()).generation
        await host.start("new")
        assert (await runtime.owner()).generation > old
        store = runtime.store
        assert store is not None
        reminders, runner = runtime.reminders, runtime.child_runner
        assert reminders is not None
        assert runner is not None
        target = StoreTarget(path=Layout(tmp_path / "agent").project("x"), entry_type=dict)
        stale: list[tuple[str, Any]] = [
            ("owner", lambda: runtime.owner_ref.ask(GetOwner(), generation=old)),
            ("companion", lambda: runtime.companion.ask(Describe(), generation=old)),
            ("store", lambda: store.ref.ask(Read(target=target), generation=old)),
            ("reminder", lambda: reminders.ask(GetReminderState(), generation=old)),
            ("child-runner", lambda: runner.ask(ListChildren(), generation=old)),
        ]
        for name, ask in stale:
            with pytest.raises(StaleGeneration, match=f"{name!r} refused work from generation"):
                await ask()
    per_actor = _summary(trace)["per_actor"]
    assert {name: per_actor[name].get("drop", 0) for name, _ in stale} == {
        name: 1 for name, _ in stale
    }
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert all(line.get("gen") is not None for line in lines)  # every line carries it


@pytest.mark.asyncio
async def test_an_owner_crash_keeps_generation_workspace_and_subscribers(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Restart contract of the Owner: a crash mid-work fails that ask, and the restarted
    Owner still knows the generation (never going backwards), the cwd, and who to tell —
    so the Store keeps accepting the session's writes and a later change still reaches
    the Companion."""
    from persona_mind.actors.owner import OwnerActor  # noqa: PLC0415

    real = OwnerActor.receive

    async def crash_once(self: OwnerActor, message: OwnerMsg) -> object:
        if isinstance(message, SetWorkspace) and message.cwd == "/boom":
            raise RuntimeError("owner fell over mid-work")
        return await real(self, message)

    monkeypatch.setattr(OwnerActor, "receive", crash_once)
    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock()) as host:
        await host.start()
        runtime = host.runtime
        before = await runtime.owner()
        owner: ActorRef[OwnerMsg] = runtime.owner_ref
        probe = TestProbe(runtime.system, name="subscriber")
        await owner.ask(Subscribe(ref=probe.ref))
        with pytest.raises(ActorStopped, match="crashed while handling SetWorkspace"):
            await owner.ask(SetWorkspace(cwd="/boom"))
        after = await runtime.owner()
        assert owner.statistics().restarts == 1
        assert (after.generation, after.cwd, after.session_id) == (
            before.generation,
            before.cwd,
            before.session_id,
        )
        remembered = await host.call_tool(
            "memory", {"action": "remember", "kind": "convention", "text": "Tabs in Makefiles."}
        )
        assert not remembered.is_error, remembered.text  # the Store still takes the writes
        moved = await owner.ask(SetWorkspace(cwd=str(workspace / "sub")))
        assert moved.generation == before.generation + 1  # forward, never back to 0
        changed = await probe.expect(OwnerChanged)  # subscribers survived the restart
        assert changed.state == moved
