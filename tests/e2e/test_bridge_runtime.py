"""The real ``persona_mind.runtime.Runtime`` inside a real Pi session (issue 7 acceptance).

Unlike the other bridge tests (stub runtime), these start the sidecar with its default runtime
(Mind + Persona wired as Companion features): the memory tool writes a fact, the next prompt
carries it, ``/persona`` activates a persona, session notes survive ``--continue`` and follow
branch moves (M-VERIFY-2, M-VERIFY-4, M-HOST-9).
"""

from __future__ import annotations

import json
import os
import re
import time

import pytest

from .conftest import NAV_EXTENSION, PiEnv, RpcPi

pytestmark = pytest.mark.e2e

MARKER = "Makefiles here use tabs MARKER-7731"


def test_real_runtime_starts_in_pi_and_the_session_works(real: PiEnv) -> None:
    proc = real.run_print("hello")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ECHO: hello"
    log = real.bridge_log.read_text()
    assert "runtime=persona_mind.runtime.Runtime" in log
    assert "problem[" not in log
    assert "sidecar exit code=0" in log


def test_memory_tool_saves_a_fact_on_disk_and_the_next_prompt_carries_it(real: PiEnv) -> None:
    real.fake.push(
        {
            "tool_calls": [
                {
                    "name": "memory",
                    "arguments": {"action": "remember", "kind": "convention", "text": MARKER},
                }
            ]
        },
        {"text_from_last_tool": "SAVED: "},
    )
    with real.rpc(session=True) as rpc:
        rpc.prompt("remember that Makefiles use tabs")
        saved = real.fake.tool_results(-1)[-1]
        assert "MARKER-7731" in saved
        assert not saved.startswith("persona-mind memory:")  # not a bridge error
        on_disk = [
            p
            for p in (real.root / "agent" / "persona-mind").rglob("*")
            if p.is_file() and "MARKER-7731" in p.read_text(errors="replace")
        ]
        assert on_disk, "the fact is in a memory file under <agentDir>/persona-mind/"
        # issue 27 item 1: the model's tool call in Pi is stamped origin "model"
        rows = [
            e
            for p in on_disk
            for e in json.loads(p.read_text()).get("entries", [])
            if "MARKER-7731" in e.get("text", "")
        ]
        assert [e.get("origin") for e in rows] == ["model"]
        rpc.prompt("how do we indent Makefiles?")
        assert "MARKER-7731" in real.fake.system_prompt(-1)


def test_one_remember_turn_in_real_pi_stores_the_fact_once(real: PiEnv) -> None:
    """Issue 25 item 3: capture saves the user's words; the model's remember of the same
    words in that turn re-records that row, so one file row carries the text."""
    text = "Makefiles here use tabs MARKER-8842"
    real.fake.push(
        {
            "tool_calls": [
                {
                    "name": "memory",
                    "arguments": {"action": "remember", "kind": "convention", "text": text},
                }
            ]
        },
        {"text_from_last_tool": "SAVED: "},
    )
    with real.rpc(session=True) as rpc:
        rpc.prompt(f"remember that {text}")
        saved = real.fake.tool_results(-1)[-1]
        assert "Already saved from the user's message" in saved
        rows = 0
        for path in (real.root / "agent" / "persona-mind").rglob("*.json"):
            rows += path.read_text(errors="replace").count("MARKER-8842")
        assert rows == 1


def test_persona_command_activates_a_persona_for_the_next_request(real: PiEnv) -> None:
    with real.rpc(session=True) as rpc:
        rpc.prompt("before any persona")
        assert "software architect" not in real.fake.system_prompt(-1)
        for command in (
            "/persona pack install software-team",
            "/persona team select official/software-team",
            "/persona use architect",
        ):
            rpc.call({"type": "prompt", "message": command})  # answered after the handler
        rpc.prompt("design the storage layer")
        assert "You are the team's software architect" in real.fake.system_prompt(-1)
        errors = [
            r for r in rpc.seen if r.get("method") == "notify" and r.get("notifyType") == "error"
        ]
        assert errors == []


def test_session_notes_survive_continue_and_follow_branch_moves(real: PiEnv) -> None:
    real.extensions.append(NAV_EXTENSION)
    note = {"action": "remember", "kind": "note", "tier": "session", "text": "NOTE-A-5150"}
    with real.rpc(session=True) as rpc:
        rpc.prompt("first")
        fork_point = rpc.call({"type": "get_entries"})["data"]["entries"][-1]["id"]
        real.fake.push({"tool_calls": [{"name": "memory", "arguments": note}]}, {"text": "ok"})
        rpc.prompt("note this")
        rpc.prompt("check")
        assert "NOTE-A-5150" in real.fake.system_prompt(-1)
    with real.rpc("--continue", session=True) as rpc:
        rpc.prompt("after restart")
        assert "NOTE-A-5150" in real.fake.system_prompt(-1)
        rpc.call({"type": "prompt", "message": f"/e2e-goto {fork_point}"})
        rpc.wait_notify(f"e2e-goto {fork_point} cancelled=false")
        rpc.prompt("on the old branch")
        assert "NOTE-A-5150" not in real.fake.system_prompt(-1)


def test_consult_runs_a_child_of_the_hosts_own_pi_without_the_bridge(real: PiEnv) -> None:
    """P-HOST-3, P-CHILD: a consult is a one-shot child of the same Pi; no recursion."""
    with real.rpc(session=True) as rpc:
        for command in (
            "/persona pack install software-team",
            "/persona team select official/software-team",
            "/persona use architect",
        ):
            rpc.call({"type": "prompt", "message": command})
        real.fake.push(
            {
                "tool_calls": [
                    {
                        "name": "persona_consult",
                        "arguments": {"consultant": "test-engineer", "question": "Is it tested?"},
                    }
                ]
            },
            {"text": "CHILD SAYS YES-6620"},
            {"text_from_last_tool": "PARENT SAW: "},
        )
        before = len(real.fake.requests)
        rpc.prompt("ask the test engineer")
    parent_call, child, parent_answer = real.fake.requests[before:]
    assert "persona_consult" in [t["function"]["name"] for t in parent_call.get("tools", [])]
    child_tools = [t["function"]["name"] for t in child.get("tools", []) or []]
    assert "memory" not in child_tools  # the child did not load the bridge (-ne + kill switch)
    assert "persona_consult" not in child_tools
    child_system = "\n".join(
        m["content"] if isinstance(m["content"], str) else ""
        for m in child["messages"]
        if m["role"] == "system"
    )
    assert "You are the team's test engineer" in child_system
    assert "CHILD SAYS YES-6620" in real.fake.tool_results(-1)[-1]
    assert parent_answer["model"] == child["model"] == "fake-model"


def _children_of(pid: int) -> list[int]:
    """Live child processes of ``pid`` (Pi renames its process title, so match on ppid)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def _start_slow_consult(real: PiEnv, rpc: RpcPi) -> int:
    """Activate a persona, start a consult whose child hangs; return the sidecar pid."""
    for command in (
        "/persona pack install software-team",
        "/persona team select official/software-team",
        "/persona use architect",
    ):
        rpc.call({"type": "prompt", "message": command})
    before = len(real.fake.requests)
    real.fake.push(
        {
            "tool_calls": [
                {
                    "name": "persona_consult",
                    "arguments": {"consultant": "test-engineer", "question": "Slow answer?"},
                }
            ]
        },
        {"delay": 20, "text": "too late"},
    )
    rpc.call({"type": "prompt", "message": "consult slowly"})
    assert real.fake.wait_for_requests(before + 2, timeout=60)  # the child is asking
    [sidecar] = re.findall(r" ready pid=(\d+)", real.bridge_log.read_text())[-1:]
    assert _children_of(int(sidecar)), "a child Pi runs the consult"
    return int(sidecar)


def test_aborting_pi_during_a_consult_cancels_the_tool_call_and_the_session_goes_on(
    real: PiEnv,
) -> None:
    """Esc/abort in Pi → the tool's abort signal → a cancel frame → the sidecar stops the call."""
    with real.rpc(session=True) as rpc:
        _start_slow_consult(real, rpc)
        rpc.call({"type": "abort"})
        settled = rpc.wait_for(lambda r: r.get("type") == "agent_settled")
        assert settled["aborted"] is True
        real.fake.push({"text": "still here"})
        rpc.prompt("and now?")
    assert "Pi cancelled request" in real.bridge_log.read_text()


def test_aborting_pi_during_a_consult_stops_the_child(real: PiEnv) -> None:
    """Pi's abort cancels the tool call; the kernel cancels the deferred consult, whose child
    is stopped by the runner's cancel ladder: no process is left behind."""
    with real.rpc(session=True) as rpc:
        sidecar = _start_slow_consult(real, rpc)
        rpc.call({"type": "abort"})
        rpc.wait_for(lambda r: r.get("type") == "agent_settled")
        deadline = time.monotonic() + 10
        while _children_of(sidecar) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _children_of(sidecar) == [], "the consult child was stopped"
