"""Issue 13 item 1: acknowledged reminders are never replayed (M-REMINDER-3, M-REMINDER-1).

Not across persona switches (new generations), not across ``/resume`` in the same process,
and not across a process restart followed by ``/resume`` — the last one needs the durable
ack entry, because a fresh runtime's Reminder actor starts with nothing delivered.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.messages.host import Usage
from persona_mind.messages.reminder import GetReminderState
from persona_mind.mind.backlog._reminder import ACK_ENTRY_TYPE
from persona_mind.testing import ManualClock
from persona_mind.testing._scripted import ScriptedModel
from persona_mind.testing._simhost import SimHost
from tests.integration.conftest import bind_team

TEXT = "Check the nightly build"


async def _drain(host: SimHost) -> None:
    """Let the Reminder's mailbox settle: ask it (its answer comes after earlier mail)."""
    reminders = host.runtime.reminders
    assert reminders is not None
    await host.runtime.owner()
    await reminders.ask(GetReminderState())
    await host.runtime.host.flush()  # the wake's entry, card and toast reach the host


def _wakes(host: SimHost) -> int:
    return sum(TEXT in m.body for m in host.displayed)


async def _wake_once(host: SimHost, clock: ManualClock) -> None:
    await bind_team(host)
    added = await host.call_tool(
        "backlog", {"action": "add", "text": TEXT, "remind_in_minutes": 30}
    )
    assert not added.is_error, added.text
    await host.turn("ok", usage=Usage(input_tokens=10))
    clock.advance(30 * 60)
    await _drain(host)
    assert _wakes(host) == 1


@pytest.mark.asyncio
async def test_wake_records_an_ack_entry_and_a_toast_M_REMINDER_1_3(
    host: SimHost, clock: ManualClock
) -> None:
    """The wake is display-only, with a short toast and a durable ack on the branch."""
    await _wake_once(host, clock)
    acks = [e for e in host.session.branch if e.custom_type == ACK_ENTRY_TYPE]
    assert len(acks) == 1
    [[item_id, remind_at]] = acks[0].data["deadlines"]
    assert item_id.startswith("b")
    assert isinstance(remind_at, float)
    assert ("info", "Backlog reminder") in host.notifications
    assert host.user_messages == []


@pytest.mark.asyncio
async def test_no_replay_across_persona_switches_and_resume_M_REMINDER_3(
    host: SimHost, clock: ManualClock
) -> None:
    """The audit's case: one item shown again after two persona switches and a resume."""
    await _wake_once(host, clock)
    for name in ("architect", "reviewer"):
        await host.command(f"/persona use {name}")
        await host.turn("next", usage=Usage(input_tokens=10))
    await host.start("resume")
    await host.turn("again", usage=Usage(input_tokens=10))
    clock.advance(60 * 60)
    await _drain(host)
    assert _wakes(host) == 1


@pytest.mark.asyncio
async def test_no_replay_after_restart_and_resume_M_REMINDER_3(
    tmp_path: Path, workspace: Path, host: SimHost, clock: ManualClock, model: ScriptedModel
) -> None:
    """start → wake → the process ends → a new runtime resumes the session → no second wake."""
    await _wake_once(host, clock)
    session = host.session
    await host.shutdown()
    async with SimHost(
        agent_dir=tmp_path / "agent", cwd=workspace, clock=clock, child_backend=model
    ) as again:
        again.session = session  # Pi reopens the same session file on /resume
        again.sessions[session.session_id] = session
        await again.start("resume")
        await again.turn("back", usage=Usage(input_tokens=10))
        clock.advance(60 * 60)
        await _drain(again)
        assert _wakes(again) == 0
        state = await again.runtime.reminders.ask(GetReminderState())
        assert len(state.delivered) == 1
