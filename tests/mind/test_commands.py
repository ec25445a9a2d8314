"""/mind and /persona-mind: one handler, status/list/read/forget/doctor/settings (M-UI-7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.mind import MemoryService
from persona_mind.mind._commands import MindCommandContext, command_specs, handle_mind_command
from persona_mind.mind._settings import MindSettings, load_persona_settings


def test_both_names_declared_M_UI_7() -> None:
    assert [c.name for c in command_specs()] == ["mind", "persona-mind"]


@pytest.mark.asyncio
async def test_status_list_read_forget(svc: MemoryService) -> None:
    ctx = MindCommandContext(svc, MindSettings())
    found, _ = await svc.remember("convention", "use uv for envs", tier="project")
    status = await handle_mind_command("", ctx)
    assert "project: 1 live fact" in status.text
    listed = await handle_mind_command("list project", ctx)
    assert found.fact.id in listed.text
    read = await handle_mind_command(f"read {found.fact.id}", ctx)
    assert "use uv for envs" in read.text
    forgot = await handle_mind_command(f"forget {found.fact.id}", ctx)
    assert forgot.level == "info"
    assert await svc.list_facts("project") == []


@pytest.mark.asyncio
async def test_capture_and_nudge_settings_session_only_M_CAPTURE_12(svc: MemoryService) -> None:
    settings = MindSettings.from_persona_settings({"mind": {"capture": "prompt", "nudge": False}})
    ctx = MindCommandContext(svc, settings)
    assert (await handle_mind_command("capture", ctx)).text == "capture: prompt"
    await handle_mind_command("capture off", ctx)
    await handle_mind_command("nudge on", ctx)
    assert settings.capture == "off"
    assert settings.nudge is True
    assert settings.contribution() == {
        "mind": {"capture": "off", "nudge": True, "writePolicy": "confirm-untrusted"}
    }
    bad = await handle_mind_command("capture sometimes", ctx)
    assert bad.level == "error"


def test_bad_settings_keep_defaults() -> None:
    s = MindSettings.from_persona_settings({"mind": {"capture": 3, "nudge": "yes"}})
    assert (s.capture, s.nudge) == ("auto", True)
    assert len(s.warnings) == 2


@pytest.mark.asyncio
async def test_inactive_mind_refuses_with_reason_M_COMPANION_2(svc: MemoryService) -> None:
    ctx = MindCommandContext(None, MindSettings(), refusal="no Persona companion loaded")
    res = await handle_mind_command("list", ctx)
    assert res.level == "warning"
    assert "no Persona companion loaded" in res.text
    status = await handle_mind_command("status", ctx)
    assert "inactive" in status.text.lower()


@pytest.mark.asyncio
async def test_doctor_reports_store_state(svc: MemoryService) -> None:
    ctx = MindCommandContext(svc, MindSettings())
    res = await handle_mind_command("doctor", ctx)
    assert res.text.startswith("Mind doctor: ok")


@pytest.mark.asyncio
async def test_unknown_subcommand(svc: MemoryService) -> None:
    res = await handle_mind_command("explode now", MindCommandContext(svc, MindSettings()))
    assert res.level == "error"
    assert "usage" in res.text


def test_settings_file_read_only_and_fail_soft_M_SCOPE_8_10(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    assert load_persona_settings(agent) == (None, None)
    path = agent / "persona" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"mind": {"capture": "off"}}')
    before = path.stat().st_mtime_ns
    data, warning = load_persona_settings(agent)
    assert warning is None
    assert MindSettings.from_persona_settings(data).capture == "off"
    assert path.stat().st_mtime_ns == before
    path.write_text("{torn")
    data, warning = load_persona_settings(agent)
    assert data is None
    assert warning is not None
    assert path.read_text() == "{torn"  # never repaired by Mind
