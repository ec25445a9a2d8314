"""Smaller rules that other files do not name: lock domains, project identity, note ordering,
late results after a scope change (M-BACKLOG-8, M-SCOPE-13, M-SESSION-NOTES-23, M-UI-5)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from persona_mind.messages.host import BeforeAgentStart, SessionStart
from persona_mind.mind import (
    FactIndex,
    InjectionInput,
    MindScope,
    MindSession,
    NoteView,
    ProjectRef,
    find_project,
    plan_injection,
)
from persona_mind.testing import ManualClock
from tests.mind._fakestore import FakeStore
from tests.mind.conftest import ARCHITECT


def test_backlog_has_its_own_lock_domain_M_BACKLOG_8_M_STORE_16(tmp_path: Path) -> None:
    scope = MindScope(tmp_path, ARCHITECT, ProjectRef(str(tmp_path / "r")))
    assert scope.backlog_target().lock == "backlog"
    assert {scope.fact_target(t).lock for t in scope.tiers()} == {"memory"}


def test_project_identity_is_the_canonical_root_M_SCOPE_13(tmp_path: Path) -> None:
    repo = tmp_path / "work" / "app"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "pkg").mkdir(parents=True)
    link = tmp_path / "link"
    os.symlink(repo, link)
    home = tmp_path / "home"
    a = find_project(repo / "src" / "pkg", home)
    b = find_project(link / "src", home)
    assert a is not None
    assert a == b
    assert a.root == os.path.realpath(repo)
    assert find_project(home, home) is None  # M-SCOPE-18


def test_note_order_task_then_recency_objective_first_M_SESSION_NOTES_23() -> None:
    notes = [
        NoteView("n_old_match", "the parser needs a pratt loop", saved_at=1.0),
        NoteView("n_recent", "unrelated but recent", saved_at=9.0),
        NoteView("n_obj", "finish today", kind="objective", saved_at=0.5),
    ]
    plan = plan_injection(InjectionInput(prompt="fix the parser", now=10.0, notes=notes))
    assert [i.id for i in plan.items] == ["n_obj", "n_old_match", "n_recent"]
    assert plan.items[1].reason.startswith("task match")


def test_legs_get_no_notes_even_when_given_M_LEG_4() -> None:
    idx = {"persona": FactIndex.build([])}
    plan = plan_injection(
        InjectionInput(
            prompt="",
            now=0.0,
            indexes=idx,  # type: ignore[arg-type]
            notes=[NoteView("n_1", "x")],
            lean=True,
        )
    )
    assert plan.items == ()


@pytest.mark.asyncio
async def test_late_injection_after_scope_change_is_dropped_M_UI_5(
    store: FakeStore, clock: ManualClock, tmp_path: Path
) -> None:
    repo = tmp_path / "r"
    (repo / ".git").mkdir(parents=True)
    s = MindSession(store, clock, tmp_path / "agent", home=tmp_path / "home")
    event = SessionStart(reason="startup", session_id="s1", cwd=str(repo))
    s.start(event, persona=ARCHITECT, generation=1)
    assert s.service is not None
    await s.service.remember("note", "old scope fact")
    gate = asyncio.Event()
    reading = asyncio.Event()
    real_read = store.read

    async def slow_read(target: Any) -> Any:
        reading.set()
        await gate.wait()
        return await real_read(target)

    store.read = slow_read  # type: ignore[method-assign]
    task = asyncio.ensure_future(s.before_agent_start(BeforeAgentStart(prompt="fact")))
    await asyncio.wait_for(reading.wait(), 5)  # the injection is reading the old scope
    s.start(SessionStart(reason="new", session_id="s2", cwd=str(repo)), persona=None, generation=2)
    gate.set()
    injection = await task
    assert injection.sections == ()
