"""Faults on the real host: a killed sidecar, one that never answers, bad frames, bad tools.

Issue 7 acceptance: "Bad input — a malformed frame, an unknown tool, a sidecar that never
answers — gets a clear error in the Pi session; the session goes on", and "a sidecar killed
mid-session is survived".
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import pytest

from .conftest import REPO, PiEnv

pytestmark = pytest.mark.e2e


def _pids(pienv: PiEnv) -> list[int]:
    return [r["pid"] for r in pienv.stub_records("enter")]


def _echo_again(pienv: PiEnv) -> None:
    pienv.fake.push(
        {"tool_calls": [{"name": "stub_echo", "arguments": {"text": "again"}}]},
        {"text_from_last_tool": "SAW "},
    )


def test_sidecar_killed_between_prompts_is_restarted_and_serves_again(pienv: PiEnv) -> None:
    with pienv.rpc() as rpc:
        rpc.prompt("first")
        [first_pid] = _pids(pienv)
        os.kill(first_pid, signal.SIGKILL)
        rpc.wait_notify("its tools are disabled, restarting")
        rpc.wait_notify("persona-mind is back")
        _echo_again(pienv)
        rpc.prompt("second")
        assert "persona-mind" in pienv.fake.system_prompt(-1)  # injection works again
    pids = _pids(pienv)
    assert len(pids) == 2
    assert pids[1] != first_pid
    assert f"pid={pids[1]} text=again" in pienv.fake.tool_results(-1)[-1]
    starts = [r for r in pienv.stub_records("event") if r["value"]["type"] == "SessionStart"]
    assert [s["value"]["reason"] for s in starts] == ["startup", "reload"]


def test_sidecar_dying_inside_a_tool_call_gives_the_model_a_clear_error(pienv: PiEnv) -> None:
    pienv.fake.push(
        {"tool_calls": [{"name": "stub_die", "arguments": {"text": "bye"}}]},
        {"text": "noted the failure"},
    )
    with pienv.rpc() as rpc:
        rpc.prompt("kill it")
        [died] = pienv.fake.tool_results(1)
        assert died.startswith("persona-mind stub_die:")
        assert "sidecar exited" in died
        rpc.wait_notify("persona-mind is back")
        _echo_again(pienv)
        rpc.prompt("again")
        assert "text=again" in pienv.fake.tool_results(-1)[-1]


def test_a_sidecar_that_never_answers_times_out_with_a_clear_error(pienv: PiEnv) -> None:
    pienv.env["PERSONA_MIND_TOOL_TIMEOUT_MS"] = "1500"
    pienv.fake.push(
        {"tool_calls": [{"name": "stub_slow", "arguments": {"text": "x"}}]},
        {"text": "moving on"},
    )
    with pienv.rpc() as rpc:
        rpc.prompt("wait forever")
        [timed_out] = pienv.fake.tool_results(1)
        assert timed_out == (
            "persona-mind stub_slow: persona-mind did not answer tool within 1500 ms"
        )
        _echo_again(pienv)
        rpc.prompt("still there?")  # the session and the sidecar go on
        assert "text=again" in pienv.fake.tool_results(-1)[-1]
    assert len(_pids(pienv)) == 1


def test_failing_and_unknown_tools_are_errors_the_session_survives(pienv: PiEnv) -> None:
    pienv.fake.push(
        {
            "tool_calls": [
                {"name": "stub_boom", "arguments": {"text": "x"}},
                {"name": "no_such_tool", "arguments": {}},
                {"name": "stub_echo", "arguments": {"wrong": 1}},
            ]
        },
        {"text": "done"},
    )
    proc = pienv.run_print("try things")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"
    boom, unknown, invalid = pienv.fake.tool_results(1)
    assert "stub tool stub_boom exploded on purpose" in boom
    assert "no_such_tool" in unknown
    assert "not found" in unknown
    assert "Validation failed" in invalid  # Pi checks our JSON Schema before calling us


def test_malformed_frames_from_the_sidecar_are_answered_and_the_session_goes_on(
    pienv: PiEnv,
) -> None:
    noisy = REPO / "tests" / "bridge" / "noisy_sidecar.py"
    pienv.env["PERSONA_MIND_SIDECAR_CMD"] = json.dumps([sys.executable, str(noisy)])
    pienv.env["PYTHONPATH"] = str(REPO)
    with pienv.rpc() as rpc:
        rpc.wait_notify("sidecar frame is not valid JSON")
        rpc.wait_notify("a frame must be a JSON object")
        rpc.wait_notify('unknown frame type "telepathy"')
        rpc.wait_notify('the extension has no notify "dance"')
        _echo_again(pienv)
        rpc.prompt("works anyway?")
        assert "text=again" in pienv.fake.tool_results(-1)[-1]
    log = pienv.bridge_log.read_text()
    # The sidecar heard back about each bad line and about the unknown method it asked for.
    assert log.count("Pi reported") >= 3
    assert 'answered request 7 with unknown_method: the extension has no method "levitate"' in log


def test_runtime_that_cannot_start_is_reported_and_pi_still_answers(pienv: PiEnv) -> None:
    pienv.env["STUB_RUNTIME_FAIL_START"] = "1"
    pienv.env["PERSONA_MIND_MAX_RESTARTS"] = "2"
    with pienv.rpc() as rpc:
        note = rpc.wait_notify("persona-mind stopped:")
        assert "stub runtime told to fail at start" in note["message"]
        assert "run /reload to try again" in note["message"]
        rpc.prompt("hello anyway")
    # the first start and exactly two restarts (a failure never schedules two restarts)
    assert pienv.bridge_log.read_text().count("sidecar exit") == 3
    assert "stub_echo" not in pienv.fake.tool_names(-1)
    assert pienv.fake.user_texts(-1) == ["hello anyway"]


def test_kill_switch_loads_nothing(pienv: PiEnv) -> None:
    pienv.env["PERSONA_MIND_DISABLE"] = "1"
    proc = pienv.run_print("hi")
    assert proc.returncode == 0, proc.stderr
    assert "stub_echo" not in pienv.fake.tool_names(0)
    assert "persona-mind" not in pienv.fake.system_prompt(0)
    assert pienv.stub_records() == []


def test_injection_that_never_answers_fails_open_and_the_next_prompt_is_injected(
    pienv: PiEnv,
) -> None:
    pienv.env["PERSONA_MIND_INJECT_TIMEOUT_MS"] = "800"
    with pienv.rpc() as rpc:
        rpc.prompt("HANG in the runtime")
        note = rpc.wait_notify("memory was not injected")
        assert "did not answer event within 800 ms" in note["message"]
        assert "persona-mind" not in pienv.fake.system_prompt(-1)  # the run went on without it
        rpc.prompt("a normal prompt")
        assert "STUB-MEMORY-1" in pienv.fake.system_prompt(-1)  # Pi's cancel freed the sidecar
    assert len(_pids(pienv)) == 1


def test_pi_killed_hard_leaves_no_orphan_sidecar(pienv: PiEnv) -> None:
    """SIGKILL to Pi closes the sidecar's stdin; the sidecar leaves its runtime and exits."""
    with pienv.rpc() as rpc:
        rpc.prompt("hello")
        [pid] = _pids(pienv)
        rpc.proc.kill()
        rpc.proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"sidecar {pid} outlived its Pi")
    assert pienv.stub_records("exit"), "the runtime was left cleanly (EOF path)"


def test_root_escalation_ends_the_sidecar_non_zero_and_the_extension_restarts_it(
    pienv: PiEnv,
) -> None:
    """Issue 10: the runtime's root supervisor giving up ends the sidecar (exit 3, one clear
    stderr line), and the extension restarts it; the session goes on with a fresh runtime.

    The stub runtime runs a real ActorSystem; ``stub_boom`` with ``ESCALATE`` crashes an
    actor that may not restart, so the root escalates.
    """
    pienv.fake.push(
        {"tool_calls": [{"name": "stub_boom", "arguments": {"text": "ESCALATE"}}]},
        {"text": "noted the failure"},
    )
    with pienv.rpc() as rpc:
        rpc.prompt("escalate")
        note = rpc.wait_notify("its tools are disabled, restarting")
        assert "the sidecar exited (code 3" in note["message"]
        rpc.wait_notify("persona-mind is back")
        [failed] = pienv.fake.tool_results(1)
        assert failed.startswith("persona-mind stub_boom:")  # the model got a clear error
        _echo_again(pienv)
        rpc.prompt("again")
        assert "text=again" in pienv.fake.tool_results(-1)[-1]
    pids = _pids(pienv)
    assert len(pids) == 2
    assert pids[0] != pids[1]
    log = pienv.bridge_log.read_text()
    assert "sidecar exit code=3" in log
    assert log.count("the runtime gave up") == 1
    assert "'crasher' crashed more than its restart intensity allows" in log
