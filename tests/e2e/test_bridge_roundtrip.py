"""The bridge inside a real Pi: tools, injection, commands, notes across --continue and branches.

These run the real Pi 1.x with our ``pi-extension/`` and the Python sidecar against the fake
OpenAI server; the runtime is the stub in ``tests/bridge/stub_runtime.py`` so the bridge is
tested on its own terms (issue 7; M-VERIFY-2, M-HOST-9, M-UI-3).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import NAV_EXTENSION, PiEnv

pytestmark = pytest.mark.e2e


def test_tool_declared_by_the_runtime_is_called_and_its_result_reaches_the_next_request(
    pienv: PiEnv,
) -> None:
    pienv.fake.push(
        {"tool_calls": [{"name": "stub_echo", "arguments": {"text": "ping"}}]},
        {"text_from_last_tool": "SAW "},
    )
    proc = pienv.run_print("please echo")
    assert proc.returncode == 0, proc.stderr
    assert "stub_echo" in pienv.fake.tool_names(0)
    [result] = pienv.fake.tool_results(1)
    assert re.fullmatch(r"STUB-ECHO pid=\d+ text=ping entries=0", result)
    assert proc.stdout.strip() == f"SAW {result}"
    calls = pienv.stub_records("tool")
    assert [c["value"]["name"] for c in calls] == ["stub_echo"]
    assert calls[0]["value"]["arguments"] == {"text": "ping"}


def test_before_agent_start_injection_reaches_the_system_prompt(pienv: PiEnv) -> None:
    proc = pienv.run_print("hello")
    assert proc.returncode == 0, proc.stderr
    system = pienv.fake.system_prompt(0)
    assert "<persona-mind>\nSTUB-MEMORY-1 notes=[]\n</persona-mind>" in system
    events = [r["value"]["type"] for r in pienv.stub_records("event")]
    assert events[0] == "SessionStart"
    assert events[1:4] == ["Input", "BeforeAgentStart", "AgentStart"]
    assert events[-3:] == ["AgentEnd", "AgentSettled", "SessionShutdown"]
    settled = [r for r in pienv.stub_records("event") if r["value"]["type"] == "AgentSettled"]
    assert settled[0]["value"]["usage"]["input_tokens"] > 0  # usage forwarded for the gate
    assert pienv.stub_records("exit"), "the sidecar left its runtime on session_shutdown"


def test_command_persists_a_note_that_survives_continue(pienv: PiEnv) -> None:
    with pienv.rpc(session=True) as rpc:
        rpc.call({"type": "prompt", "message": "/stub-note first note"})
        rpc.wait_notify("noted: first note")
        rpc.wait_notify("saved note 'first note'")
        status = rpc.wait_for(
            lambda r: (
                r.get("type") == "extension_ui_request"
                and r.get("method") == "setStatus"
                and r.get("statusKey") == "stub"
            )
        )
        assert status["statusText"] == "notes=1"
        rpc.prompt("what do you remember?")
        assert "notes=[first note]" in pienv.fake.system_prompt(-1)
    assert rpc.proc.returncode == 0
    # A new Pi process continues the session: the note comes back from the branch.
    with pienv.rpc("--continue", session=True) as rpc2:
        rpc2.prompt("and now?")
        assert "notes=[first note]" in pienv.fake.system_prompt(-1)
    starts = [r for r in pienv.stub_records("event") if r["value"]["type"] == "SessionStart"]
    # only the runtime's own entries come back (the display card entry is presentation only)
    assert [e["custom_type"] for e in starts[-1]["value"]["entries"]] == ["stub-note"]
    assert starts[-1]["value"]["entries"][0]["data"] == {"text": "first note"}


def test_notes_follow_branch_moves(pienv: PiEnv) -> None:
    pienv.extensions.append(NAV_EXTENSION)
    with pienv.rpc(session=True) as rpc:
        rpc.prompt("first prompt")
        entries = rpc.call({"type": "get_entries"})["data"]["entries"]
        fork_point = entries[-1]["id"]  # the assistant answer before any note
        rpc.call({"type": "prompt", "message": "/stub-note on branch A"})
        rpc.wait_notify("saved note 'on branch A'")
        rpc.prompt("second prompt")
        assert "notes=[on branch A]" in pienv.fake.system_prompt(-1)
        rpc.call({"type": "prompt", "message": f"/e2e-goto {fork_point}"})
        rpc.wait_notify(f"e2e-goto {fork_point} cancelled=false")
        rpc.prompt("third prompt, on the old branch")
        assert "notes=[]" in pienv.fake.system_prompt(-1)
    trees = [r for r in pienv.stub_records("event") if r["value"]["type"] == "SessionTree"]
    assert trees, "session_tree reached the runtime"
    assert trees[-1]["value"]["leaf_id"] == fork_point
    assert trees[-1]["value"]["entries"] == []


def _starts(pienv: PiEnv) -> list[dict[str, Any]]:
    return [r for r in pienv.stub_records("event") if r["value"]["type"] == "SessionStart"]


def test_new_session_replaces_the_sidecar_and_model_select_is_forwarded(pienv: PiEnv) -> None:
    with pienv.rpc(session=True) as rpc:
        rpc.prompt("first")
        rpc.call({"type": "set_model", "provider": "fake", "modelId": "fake-model-2"})
        rpc.call({"type": "new_session"})
        rpc.prompt("in the new session")
        assert "STUB-MEMORY-1" in pienv.fake.system_prompt(-1)  # a fresh runtime
    selects = [r for r in pienv.stub_records("event") if r["value"]["type"] == "ModelSelect"]
    assert selects[0]["value"]["model"] == "fake/fake-model-2"
    shutdowns = [r for r in pienv.stub_records("event") if r["value"]["type"] == "SessionShutdown"]
    assert shutdowns[0]["value"]["reason"] == "new"
    starts = _starts(pienv)
    assert [s["value"]["reason"] for s in starts] == ["startup", "new"]
    assert starts[0]["pid"] != starts[1]["pid"]
    assert starts[0]["value"]["session_id"] != starts[1]["value"]["session_id"]


@pytest.mark.parametrize("how", ["result", "host"])
def test_reload_requested_by_the_runtime_reloads_the_session(pienv: PiEnv, how: str) -> None:
    with pienv.rpc(session=True) as rpc:
        rpc.call({"type": "prompt", "message": f"/stub-reload {how}"})
        rpc.wait_for(
            lambda r: (
                r.get("type") == "extension_ui_request"
                and r.get("method") == "setStatus"
                and r.get("statusKey") == "persona-mind"
                and "ready" in str(r.get("statusText"))
            )
        )
        rpc.prompt("after the reload")
    starts = _starts(pienv)
    assert [s["value"]["reason"] for s in starts] == ["startup", "reload"]
    assert starts[0]["pid"] != starts[1]["pid"]


def test_tools_withdrawn_by_the_runtime_leave_the_request_and_can_come_back(
    pienv: PiEnv,
) -> None:
    with pienv.rpc() as rpc:
        rpc.call({"type": "prompt", "message": "/stub-tools stub_echo"})
        rpc.wait_notify("tools now")
        rpc.prompt("one")
        names = pienv.fake.tool_names(-1)
        assert "stub_echo" in names
        assert "stub_slow" not in names  # Pi has no unregister: deactivated instead
        rpc.call({"type": "prompt", "message": "/stub-tools stub_echo,stub_slow"})
        rpc.wait_notify("tools now: ['stub_echo', 'stub_slow']")
        rpc.prompt("two")
        assert {"stub_echo", "stub_slow"} <= set(pienv.fake.tool_names(-1))
        assert "stub_boom" not in pienv.fake.tool_names(-1)
