"""Two clones of one repository in real Pi sessions: project memory is shared after the user
approves one chat plan, and not before (issue 23 item 4; M-SCOPE-13, P-CHAT-PLAN-4/7/9).

Pi with the persona-mind extension and the real sidecar runtime, the fake model server on
127.0.0.1, real ``git clone``s as the sessions' working directories.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .conftest import PiEnv, RpcPi, use_architect

pytestmark = pytest.mark.e2e

MARKER = "MARKER-4411"


def _git(env: dict[str, str], *args: str, cwd: Path | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _clones(root: Path) -> dict[str, Path]:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    upstream = root / "upstream"
    _git(env, "init", "-q", "-b", "main", str(upstream))
    (upstream / "README").write_text("hello\n")
    _git(env, "add", "README", cwd=upstream)
    _git(env, "commit", "-q", "-m", "root", cwd=upstream)
    out = {}
    for name in ("one", "two"):
        out[name] = root / name / "app"
        _git(env, "clone", "-q", str(upstream), str(out[name]))
    return out


def _call(**args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": "memory", "arguments": args}]}


def _rpc(real: PiEnv, cwd: Path) -> RpcPi:
    return RpcPi(real.argv("--mode", "rpc", session=True), real.env, cwd)


def _linked(real: PiEnv) -> list[str | None]:
    path = real.root / "agent" / "persona-mind" / "memory" / "repositories.json"
    return [r.get("linkedTo") for r in json.loads(path.read_text())["entries"]]


def test_second_clone_shares_project_memory_after_one_approved_chat_plan(real: PiEnv) -> None:
    clones = _clones(real.root / "repos")
    with _rpc(real, clones["one"]) as rpc:
        use_architect(rpc)
        text = f"CI needs Docker on the runners {MARKER}"
        real.fake.push(
            _call(action="remember", kind="gotcha", text=text, tier="project"), {"text": "SAVED"}
        )
        rpc.prompt("remember that CI needs Docker")
        assert "Saved project" in real.fake.tool_results(-1)[-1]
    with _rpc(real, clones["two"]) as rpc:
        use_architect(rpc)
        real.fake.push({"text": "nothing known"})
        rpc.prompt("what do we know about CI and Docker?")
        before = json.dumps(real.fake.requests[-1])
        assert MARKER not in before  # not shared before a link
        assert f"'link' with id '{clones['one']}'" in before  # the offer, once
        real.fake.push(_call(action="link", id=str(clones["one"])), {"text": "Shall I link?"})
        rpc.prompt("can this checkout use the other clone's memory?")
        [plan_id] = re.findall(r"Plan (pl-[0-9a-f]+)", real.fake.tool_results(-1)[-1])
        assert _linked(real) == [None, None]  # a plan changes nothing
        real.fake.push(_call(action="link", plan=plan_id), {"text": "Linked."})
        rpc.prompt("yes, link them")
        assert f"Linked to {clones['one']}" in real.fake.tool_results(-1)[-1]
        assert None in _linked(real)
        assert str(clones["one"]) in _linked(real)
        real.fake.push(_call(action="link", plan=plan_id), {"text": "again"})
        rpc.prompt("link again")
        assert "plan.used" in real.fake.tool_results(-1)[-1]  # single use
        real.fake.push({"text": "CI needs Docker"})
        rpc.prompt("what do we know about CI and Docker?")
        assert MARKER in json.dumps(real.fake.requests[-1])  # shared after the link
