"""The product under a simulated session: Persona, Mind and child runs together.

These drive the real runtime (real actors, real files under a temporary agent dir) through
the host port, as Pi would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.messages.host import Usage
from persona_mind.persona.children._roundtable import SECTIONS
from persona_mind.testing import ManualClock
from persona_mind.testing._scripted import ScriptedModel
from persona_mind.testing._simhost import SimHost
from tests.integration.conftest import bind_team


@pytest.mark.asyncio
async def test_mind_refuses_without_the_persona_half(tmp_path: Path, workspace: Path) -> None:
    """M-COMPANION-2: with no Persona provider, Mind offers no tools and injects nothing."""
    from persona_mind.features import MindFeature  # noqa: PLC0415

    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock()) as sim:
        runtime = sim.runtime
        assert runtime.store is not None
        runtime.features.remove(runtime.feature("persona"))
        mind = runtime.feature("mind")
        assert isinstance(mind, MindFeature)
        mind.persona = None
        await sim.start()
        assert "memory" not in [t.name for t in sim.tools]
        turn = await sim.turn("remember that we deploy on Fridays")
        assert "persona-mind-memory" not in turn.system_prompt
        result = await sim.command("/mind status")
        assert "no Persona companion is loaded" in result.text
        assert not (tmp_path / "agent" / "persona-mind").exists()  # no memory IO at all


@pytest.mark.asyncio
async def test_active_persona_reaches_the_system_prompt_and_keys_memory(host: SimHost) -> None:
    """P-ACTIVE + DEC-3: the persona prompt is injected each turn; memory is keyed by it."""
    await bind_team(host)
    before = (await host.runtime.owner()).generation
    result = await host.command("/persona use architect")
    assert "architect" in result.text
    owner = await host.runtime.owner()
    assert owner.active_persona == "official/software-team/architect"
    assert owner.generation > before  # a persona change bumps the generation
    saved = await host.call_tool(
        "memory",
        {
            "action": "remember",
            "kind": "convention",
            "text": "Prefer ADRs for boundaries",
            "tier": "persona",
        },
    )
    assert not saved.is_error, saved.text
    turn = await host.turn("how should we record the boundary decision?")
    assert "# Persona: architect" in turn.system_prompt
    assert "Prefer ADRs for boundaries" in turn.system_prompt
    # another persona does not see the architect's persona memory
    await host.command("/persona use code-reviewer")
    turn = await host.turn("how should we record the boundary decision?")
    assert "# Persona: code-reviewer" in turn.system_prompt
    assert "Prefer ADRs for boundaries" not in turn.system_prompt


@pytest.mark.asyncio
async def test_strong_user_cue_is_captured_before_the_model_starts(host: SimHost) -> None:
    """M-CAPTURE: 'remember that …' from the user is saved before injection of that turn."""
    await bind_team(host)
    turn = await host.turn("remember that the staging database is read-only")
    assert any("remembered" in text for _, text in host.notifications)
    assert "staging database is read-only" in turn.system_prompt
    again = await host.turn("> remember that quoted text is never captured", source="interactive")
    assert "quoted text is never captured" not in again.system_prompt


@pytest.mark.asyncio
async def test_session_notes_follow_branch_moves_and_survive_a_resume(host: SimHost) -> None:
    """M-SESSION-NOTES: notes are custom entries; a branch move or resume replays them."""
    await bind_team(host)
    await host.command("/persona use architect")
    kept = len(host.session.branch)
    saved = await host.call_tool(
        "memory",
        {
            "action": "remember",
            "kind": "note",
            "text": "Checkpoint: schema v2 drafted",
            "tier": "session",
        },
    )
    assert not saved.is_error, saved.text
    assert len(host.session.branch) == kept + 1
    turn = await host.turn("continue with the schema")
    assert "Checkpoint: schema v2 drafted" in turn.system_prompt
    await host.move_branch(keep=kept)  # back to before the note
    turn = await host.turn("continue with the schema")
    assert "Checkpoint: schema v2 drafted" not in turn.system_prompt
    await host.start("resume")
    assert (await host.runtime.owner()).active_persona == "official/software-team/architect"


@pytest.mark.asyncio
async def test_chat_plan_needs_a_user_message_before_confirmation(host: SimHost) -> None:
    """P-CHAT-PLAN-9: a plan confirmed in the same turn it was shown is refused."""
    await host.command("/persona pack install software-team")
    plan = await host.call_tool(
        "persona_pack", {"action": "team", "op": "select", "pack": "software-team"}
    )
    assert not plan.is_error, plan.text
    plan_id = (plan.details or {}).get("planId") or (plan.details or {}).get("plan_id")
    assert plan_id, plan.details
    early = await host.call_tool("persona_pack", {"action": "confirm", "planId": plan_id})
    assert early.is_error
    await host.turn("yes, switch the team")
    confirmed = await host.call_tool("persona_pack", {"action": "confirm", "planId": plan_id})
    assert not confirmed.is_error, confirmed.text


@pytest.mark.asyncio
async def test_consult_runs_a_leaf_child_with_the_consultant_prompt(
    host: SimHost, model: ScriptedModel
) -> None:
    """P-CONSULT: the active persona consults a peer; its child gets that prompt, no memory."""
    await bind_team(host)
    await host.command("/persona use architect")
    model.on(persona="security-reviewer", reply="Rotate the token; scope it to read-only.")
    result = await host.call_tool(
        "persona_consult", {"consultant": "security-reviewer", "question": "Is the token safe?"}
    )
    assert not result.is_error, result.text
    assert "Rotate the token" in result.text
    (call,) = model.calls
    assert "security" in call.system_prompt.lower()
    assert not {"memory", "backlog"} & set(call.persona.tools)  # M-LEG: no memory tools
    assert call.model == "sim/scripted-model"  # the exact session model
    refused = await host.call_tool(
        "persona_consult", {"consultant": "architect", "question": "Am I right?"}
    )
    assert refused.is_error  # no self-consult


@pytest.mark.asyncio
async def test_roundtable_presents_the_full_synthesis(host: SimHost, model: ScriptedModel) -> None:
    """P-ROUNDTABLE: the session's lead selects by one tool call, two parallel rounds, one
    moderated synthesis returned in full with the instruction to present it verbatim."""
    await bind_team(host)
    model.on(phase="round1", reply="first view")
    model.on(phase="round2", reply="final position")
    synthesis = "\n".join(f"## {title}\n{title.lower()} text" for title, _ in SECTIONS)
    model.on(phase="synthesis", reply=synthesis)
    asked = await host.command("/persona-roundtable should we split the service?")
    assert asked.level == "info", asked.text
    assert "persona_roundtable" in (await host.next_user_message())
    picks = {
        "query": "should we split the service?",
        "specialists": [
            {"name": "architect", "reason": "the design"},
            {"name": "test-engineer", "reason": "the proof"},
        ],
    }
    result = await host.call_tool("persona_roundtable", picks)
    assert not result.is_error, result.text
    # the synthesis in full (P-ROUNDTABLE-16), then the dissent line (issue 26)
    assert "\n\n" + synthesis + "\n\nDissent: " in result.text
    assert "in full" in result.text
    phases = [c.kind for c in model.calls]
    assert phases.count("round1") == 2
    assert phases.count("round2") == 2
    assert "select" not in phases
    assert phases[-1] == "synthesis"
    assert host.tool_updates  # live progress reached the host (P-ROUNDTABLE-17)
    status = await host.command("/persona-roundtable status")
    assert "finished" in status.text


@pytest.mark.asyncio
async def test_backlog_reminder_wakes_as_a_display_message(
    host: SimHost, clock: ManualClock
) -> None:
    """M-REMINDER: a due backlog item becomes a display-only wake, never a user message."""
    await bind_team(host)
    added = await host.call_tool(
        "backlog", {"action": "add", "text": "Check the nightly build", "remind_in_minutes": 30}
    )
    assert not added.is_error, added.text
    await host.turn("ok", usage=Usage(input_tokens=10))
    clock.advance(30 * 60)
    for _ in range(50):
        if host.displayed:
            break
        await host.runtime.owner()  # let the reminder's mailbox drain
    assert any("nightly build" in m.body for m in host.displayed)
    assert host.user_messages == []


@pytest.mark.asyncio
async def test_mind_command_reports_stay_in_session_history(host: SimHost) -> None:
    """M-UI-3: a /mind report is kept as a custom entry on the branch."""
    await bind_team(host)
    result = await host.command("/mind status")
    assert "Mind status" in result.text
    reports = [e for e in host.session.branch if e.custom_type == "persona-mind-report"]
    assert reports[-1].data["command"] == "/mind status"
    assert reports[-1].data["text"] == result.text


@pytest.mark.asyncio
async def test_an_unsupported_backend_setting_is_reported_at_session_start(
    host: SimHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    """P-CHILD: only the native backend exists; another value is a clear start error."""
    monkeypatch.setenv("PI_PERSONA_BACKEND", "subagents")
    await host.start("new")
    errors = [text for level, text in host.notifications if level == "error"]
    assert any("PI_PERSONA_BACKEND='subagents' is not supported" in text for text in errors)
