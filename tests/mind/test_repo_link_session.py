"""A Pi session links its checkout to a clone of the same repository only through an approved
chat plan or the user's own ``/mind link`` (issue 23 item 4; P-CHAT-PLAN-4/6/7/9, M-SCOPE-21).

Real ``git clone``s in temporary folders; the session's Store is the in-memory fake.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from persona_mind.messages.host import BeforeAgentStart, CommandCall, Input, SessionStart, ToolCall
from persona_mind.mind._repo_identity import forget_identities
from persona_mind.mind._session import MindSession
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
    for name in ("one", "two", "fork"):
        out[name] = tmp_path / name / "app"
        _git("clone", "-q", str(upstream), str(out[name]))
    _git("remote", "set-url", "origin", "https://example.invalid/other/app.git", cwd=out["fork"])
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


async def _tool(s: MindSession, **args: object) -> tuple[bool, str, dict[str, object]]:
    result = await s.on_tool(
        ToolCall(call_id="c1", name="memory", arguments={"action": "link", **args})
    )
    return result.is_error, result.text, dict(result.details or {})


async def _project_texts(s: MindSession) -> str:
    return (await s.on_command(CommandCall(name="mind", args="list project"))).text


@pytest.mark.asyncio
async def test_chat_plan_links_only_after_the_users_reply_and_once(
    clones: dict[str, Path], tmp_path: Path
) -> None:
    store = FakeStore()
    one = await _session(store, tmp_path, clones["one"], "s1")
    saved = await one.on_tool(
        ToolCall(
            call_id="c0",
            name="memory",
            arguments={"action": "remember", "kind": "gotcha", "text": "CI needs Docker",
                       "tier": "project"},
        )
    )  # fmt: skip
    assert not saved.is_error
    two = await _session(store, tmp_path, clones["two"], "s2")
    assert "CI needs Docker" not in await _project_texts(two)  # not before a link
    offer = await two.before_agent_start(BeforeAgentStart(prompt="hello"))
    assert any(f"'link' with id '{clones['one']}'" in part for part in offer.sections)
    repeat = await two.before_agent_start(BeforeAgentStart(prompt="hello"))
    assert not any("'link'" in part for part in repeat.sections)  # offered once
    listed = (await two.on_command(CommandCall(name="mind", args="link"))).text
    assert f"same repository at {clones['one']}" in listed
    error, _, plan = await _tool(two, id=str(clones["one"]))  # a plan, nothing changed
    assert not error
    plan_id = str(plan["planId"])
    assert "CI needs Docker" not in await _project_texts(two)
    error, text, _ = await _tool(two, plan=plan_id)  # no user message since it was shown
    assert error
    assert "link.unapproved" in text
    assert "CI needs Docker" not in await _project_texts(two)
    await two.on_input(Input(text="yes, link them"))
    error, text, _ = await _tool(two, plan=plan_id)
    assert not error, text
    assert "CI needs Docker" in await _project_texts(two)  # shared at once
    error, text, _ = await _tool(two, plan=plan_id)
    assert error
    assert "plan.used" in text
    # the link is durable: a new session at the second clone starts on the shared files
    again = await _session(store, tmp_path, clones["two"], "s3")
    assert "CI needs Docker" in await _project_texts(again)


@pytest.mark.asyncio
async def test_fork_is_not_offered_and_plans_die_with_the_binding(
    clones: dict[str, Path], tmp_path: Path
) -> None:
    store = FakeStore()
    await _session(store, tmp_path, clones["one"], "s1")
    fork = await _session(store, tmp_path, clones["fork"], "s2")
    error, text, _ = await _tool(fork, id=str(clones["one"]))
    assert error
    assert "link.not_candidate" in text
    said = (await fork.on_command(CommandCall(name="mind", args=f"link {clones['one']}"))).text
    assert "link.not_candidate" in said
    two = await _session(store, tmp_path, clones["two"], "s3")
    _, _, plan = await _tool(two, id=str(clones["one"]))
    two.start(  # a session/workspace change discards plans (M-SCOPE-21)
        SessionStart(reason="new", session_id="s4", session_file=None, cwd=str(clones["two"])),
        persona=ARCHITECT,
        generation=2,
    )
    await two.follow_repository()
    await two.on_input(Input(text="yes"))
    error, text, _ = await _tool(two, plan=str(plan["planId"]))
    assert error
    assert "plan.unknown" in text
    # the user's own command is the exact route: it links at once, and unlinks
    said = (await two.on_command(CommandCall(name="mind", args=f"link {clones['one']}"))).text
    assert "shares the project memory" in said
    said = (await two.on_command(CommandCall(name="mind", args="link --unlink"))).text
    assert f"from {clones['one']}" in said
