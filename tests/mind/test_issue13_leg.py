"""Issue 13, Mind item 4: a leg's lean injection includes the project's objectives."""

from __future__ import annotations

import pytest

from persona_mind.mind import MemoryService, NoteView


@pytest.mark.asyncio
async def test_leg_lean_injection_carries_project_objectives_M_LEG_3_M_INJECT_12(
    svc: MemoryService,
) -> None:
    """Objectives default to project LTM; a leg must still see them (and nothing else of it)."""
    goal, _ = await svc.remember("objective", "ship the parser rewrite by friday")
    await svc.remember("convention", "tabs are forbidden in this repo", tier="project")
    await svc.remember("preference", "terse answers please", tier="persona")
    await svc.remember("note", "working detail in stm")
    await svc.backlog_add("later: tidy the lexer")
    plan = await svc.injection("parser", notes=[NoteView("n_1", "session note")], lean=True)
    assert "ship the parser rewrite by friday" in plan.text
    assert "terse answers please" not in plan.text  # persona LTM, but unrelated to "parser"
    assert "tabs are forbidden" not in plan.text  # lean: only objectives of project LTM
    assert "working detail in stm" not in plan.text
    assert "tidy the lexer" not in plan.text
    assert "session note" not in plan.text
    assert {it.section for it in plan.items} == {"project"}
    assert goal.tier == "project"  # the default tier of an objective
    assert [it.id for it in plan.items if it.section == "project"] == [goal.fact.id]


@pytest.mark.asyncio
async def test_leg_without_project_objectives_gets_no_project_section(svc: MemoryService) -> None:
    """M-LEG-3: no objective, no project section — lean stays lean."""
    await svc.remember("convention", "tabs are forbidden in this repo", tier="project")
    plan = await svc.injection("", lean=True)
    assert plan.text == ""
    assert plan.items == ()
