"""The main job and the CLI work from an install (issue 2 acceptance)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from persona_mind.cli import main
from persona_mind.trace import read_trace


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "persona_mind.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_demo_runs_end_to_end_and_writes_a_trace(tmp_path: Path) -> None:
    """`persona-mind demo --trace` shows restarts, a stale drop and a fan-out, in a real process."""
    trace = tmp_path / "demo.jsonl"
    proc = _cli("demo", "--agent-dir", str(tmp_path / "agent"), "--trace", str(trace))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "retry after restart: job-1 done (restarts: 1)" in out
    assert "stale work dropped: 1" in out
    assert "3 legs in parallel" in out
    assert "no partial result was kept" in out
    assert "confirm in the same turn: refused" in out  # P-CHAT-PLAN
    assert "confirm after the user's reply: New sessions will start" in out
    assert "capture before the model starts: persona-mind remembered" in out
    assert "<persona-mind-memory>" in out
    assert "Promoted to project" in out
    assert "Scope the token to read-only" in out  # the consult child answered
    assert "## Decision" in out  # the round-table synthesis, in full
    assert "children left running: 0" in out
    assert "demo finished" in out
    events = read_trace(trace)
    assert any(e.ev == "drop" and e.reason == "stale-generation" for e in events)
    assert any(e.ev == "restart" and e.actor == "flaky-worker" for e in events)


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    """`persona-mind --help` works and names the main job and the trace viewer."""
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "demo" in out
    assert "trace" in out


def test_trace_of_a_malformed_file_is_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    """A malformed trace file exits 2 with one line naming the line number."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"v":1,"t":0.0,"ev":"send","actor":"a"}\n{not json\n', encoding="utf-8")
    proc = _cli("trace", str(bad))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert ":2" in proc.stderr


def test_the_installed_console_script_runs() -> None:
    """The `persona-mind` entry point installed beside this interpreter answers --help."""
    script = Path(sys.executable).with_name("persona-mind")
    assert script.exists(), "persona-mind is not installed in this environment (pip install -e .)"
    proc = subprocess.run(
        [str(script), "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "demo" in proc.stdout
