"""One shape for the memory tool's chat plans: ``confirm`` with ``planId`` and ``accept``
answers a repository link plan as it answers a pending write (issue 27; P-CHAT-PLAN-4/7/9).

Real ``git clone``s in temporary folders; the session's Store is the in-memory fake.  The
older ``{action: "link", plan}`` stays an alias (tests/mind/test_repo_link_session.py).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from persona_mind.features._mind_pending import is_pending_confirm
from persona_mind.messages.host import CommandCall, Input, SessionStart, ToolCall
from persona_mind.mind._repo_identity import forget_identities
from persona_mind.mind._session import MindSession
from persona_mind.mind._tools import MEMORY_TOOL
from persona_mind.testing import ManualClock
from tests.mind._fakestore import FakeStore
from tests.mind.conftest import ARCHITECT

_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(*args: str, cwd: Path | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=_ENV, check=True, capture_output=True)


@pytest.fixture
def clones(tmp_path: Path) -> dict[str, Path]:
    forget_identities()
    upstream = tmp_path / "upstream"
    _git("init", "-q", "-b", "main", str(upstream))
    (upstream / "README").write_text("hello\n")
    _git("add", "README", cwd=upstream)
    _git("commit", "-q", "-m", "root", cwd=upstream)
    out = {}
    for name in ("one", "two"):
        out[name] = tmp_path / name / "app"
        _git("clone", "-q", str(upstream), str(out[name]))
    return out


async def _session(store: FakeStore, tmp_path: Path, cwd: Path, sid: str) -> MindSession:
    s = MindSession(store, ManualClock(), tmp_path / "agent", home=tmp_path / "home")
    s.start(
        SessionStart(reason="startup", session_id=sid, session_file=None, cwd=str(cwd)),
        persona=ARCHITECT,
        generation=1,
    )
    await s.follow_repository()
    return s


async def _memory(s: MindSession, **args: object) -> tuple[bool, str, dict[str, object]]:
    result = await s.on_tool(ToolCall(call_id="c1", name="memory", arguments=dict(args)))
    return result.is_error, result.text, dict(result.details or {})


async def _two_sessions(clones: dict[str, Path], tmp_path: Path) -> tuple[MindSession, str, str]:
    """A fact in the first clone's project; the second clone's session and a link plan."""
    store = FakeStore()
    one = await _session(store, tmp_path, clones["one"], "s1")
    error, text, _ = await _memory(
        one, action="remember", kind="gotcha", text="CI needs Docker", tier="project"
    )
    assert not error, text
    two = await _session(store, tmp_path, clones["two"], "s2")
    error, text, plan = await _memory(two, action="link", id=str(clones["one"]))
    assert not error, text
    plan_id = str(plan["planId"])
    assert plan_id.startswith("pl-")
    return two, plan_id, text


async def _shared(s: MindSession) -> bool:
    listed = await s.on_command(CommandCall(name="mind", args="list project"))
    return "CI needs Docker" in listed.text


@pytest.mark.asyncio
async def test_confirm_accepts_a_link_plan_after_the_users_reply_once(
    clones: dict[str, Path], tmp_path: Path
) -> None:
    two, plan_id, card = await _two_sessions(clones, tmp_path)
    assert f"action 'confirm', planId '{plan_id}'" in card  # the card teaches one shape
    error, text, _ = await _memory(two, action="confirm", planId=plan_id, accept=True)
    assert error
    assert "link.unapproved" in text  # no user message since it was shown
    assert not await _shared(two)
    await two.on_input(Input(text="yes, link them"))
    error, text, details = await _memory(two, action="confirm", planId=plan_id, accept=True)
    assert not error, text
    assert details["linkedTo"] == str(clones["one"])
    assert await _shared(two)
    error, text, _ = await _memory(two, action="confirm", planId=plan_id, accept=True)
    assert error
    assert "plan.used" in text


@pytest.mark.asyncio
async def test_confirm_declining_a_link_plan_changes_nothing_and_uses_it(
    clones: dict[str, Path], tmp_path: Path
) -> None:
    two, plan_id, _ = await _two_sessions(clones, tmp_path)
    await two.on_input(Input(text="no, keep them apart"))
    error, text, _ = await _memory(two, action="confirm", planId=plan_id, accept=False)
    assert not error, text
    assert text.startswith("Not linked")
    assert not await _shared(two)
    error, text, _ = await _memory(two, action="link", plan=plan_id)  # the alias, too late
    assert error
    assert "plan.used" in text
    assert not await _shared(two)


@pytest.mark.asyncio
async def test_confirm_of_a_link_plan_needs_accept(clones: dict[str, Path], tmp_path: Path) -> None:
    two, plan_id, _ = await _two_sessions(clones, tmp_path)
    await two.on_input(Input(text="yes"))
    error, text, _ = await _memory(two, action="confirm", planId=plan_id)
    assert error
    assert "accept" in text
    error, text, _ = await _memory(two, action="confirm", planId=plan_id, accept=True, id="x")
    assert error
    assert "args.unknown_field" in text
    assert not await _shared(two)


def test_pi_routes_link_plans_to_the_session_and_writes_to_the_pending_book() -> None:
    assert not is_pending_confirm("memory", {"action": "confirm", "planId": "pl-0a1b2c"})
    assert is_pending_confirm("memory", {"action": "confirm", "planId": "pp-0a1b2c"})
    assert not is_pending_confirm("memory", {"action": "link", "plan": "pl-0a1b2c"})
    description = MEMORY_TOOL.description
    assert "call confirm (planId, accept true/false)" in description
    assert "A link plan, or a write the user must confirm" in description
    assert "plan=planId" not in description
