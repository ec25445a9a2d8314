"""The interactive TUI under tmux shows the extension loaded and serving (issue 7 acceptance).

Runs the real Pi full-screen in a private tmux server (``tmux -L <unique>``), checks the
startup listing and our status line with ``capture-pane``, runs a runtime command, quits
with Ctrl+D and checks the sidecar saw ``session_shutdown``.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator

import pytest

from persona_mind.testing._pi import pi_required

from .conftest import WAIT, PiEnv

pytestmark = pytest.mark.e2e


@pytest.fixture
def tmux() -> Iterator[list[str]]:
    if shutil.which("tmux") is None:
        reason = "tmux is not installed (apt-get install -y tmux)"
        if pi_required():
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    base = ["tmux", "-L", f"pm-e2e-{uuid.uuid4().hex[:8]}"]
    yield base
    subprocess.run([*base, "kill-server"], capture_output=True, check=False)


def _screen(tmux: list[str]) -> str:
    return subprocess.run(
        [*tmux, "capture-pane", "-p", "-t", "pi"], capture_output=True, text=True, check=False
    ).stdout


def _wait_screen(tmux: list[str], needle: str) -> str:
    deadline = time.monotonic() + WAIT
    screen = ""
    while time.monotonic() < deadline:
        screen = _screen(tmux)
        if needle in screen:
            return screen
        time.sleep(0.05)
    raise AssertionError(f"{needle!r} never appeared; screen:\n{screen}")


def test_tui_shows_the_extension_loaded_and_runs_its_command(pienv: PiEnv, tmux: list[str]) -> None:
    env = {**pienv.env, "TERM": "xterm-256color", "HOME": str(pienv.root)}
    assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    command = f"exec env -i {assignments} {shlex.join(pienv.argv())}"
    subprocess.run(
        [
            *tmux,
            "new-session",
            "-d",
            "-s",
            "pi",
            "-x",
            "160",
            "-y",
            "45",
            "-c",
            str(pienv.cwd),
            command,
        ],
        check=True,
    )
    screen = _wait_screen(tmux, "persona-mind ready (4 tools)")
    listing = screen.split("[Extensions]", 1)[1].strip().splitlines()
    assert listing[0].strip() == "persona-mind"  # Pi's startup listing names our extension
    subprocess.run([*tmux, "send-keys", "-t", "pi", "-l", "/stub-note from tui"], check=True)
    subprocess.run([*tmux, "send-keys", "-t", "pi", "Enter"], check=True)
    screen = _wait_screen(tmux, "saved note 'from tui'")
    assert "notes=1" in screen  # the runtime's set_status reached the footer
    screen = _wait_screen(tmux, "card body: from tui")  # display(): a card, not a message
    assert "Stub card" in screen
    assert "second line  after a tab no colour" in screen  # sanitized: no tab, no ANSI
    # the runtime's own history entry (a note with a text body) is rendered as a card too
    lines = [line.strip() for line in screen.splitlines()]
    assert "stub-note" in lines
    assert lines[lines.index("stub-note") + 1] == "from tui"
    subprocess.run([*tmux, "send-keys", "-t", "pi", "C-d"], check=True)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and not pienv.stub_records("exit"):
        time.sleep(0.05)
    events = [r["value"]["type"] for r in pienv.stub_records("event")]
    assert events[0] == "SessionStart"
    assert events[-1] == "SessionShutdown"
    start = pienv.stub_records("event")[0]["value"]
    assert start["has_ui"] is True
    assert [c["value"]["args"] for c in pienv.stub_records("command")] == ["from tui"]


def test_tui_card_with_wide_text_in_a_narrow_terminal_does_not_break_pi(
    pienv: PiEnv, tmux: list[str]
) -> None:
    """Pi's TUI stops on a line wider than the terminal: cards must clip (M-UI-1)."""
    env = {**pienv.env, "TERM": "xterm-256color", "HOME": str(pienv.root), "LANG": "C.UTF-8"}
    assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    command = f"exec env -i {assignments} {shlex.join(pienv.argv())}"
    subprocess.run(
        [
            *tmux,
            "new-session",
            "-d",
            "-s",
            "pi",
            "-x",
            "44",
            "-y",
            "30",
            "-c",
            str(pienv.cwd),
            command,
        ],
        check=True,
    )
    _wait_screen(tmux, "persona-mind ready")
    wide = "記憶" * 40 + " end"
    subprocess.run([*tmux, "send-keys", "-t", "pi", "-l", f"/stub-note {wide}"], check=True)
    subprocess.run([*tmux, "send-keys", "-t", "pi", "Enter"], check=True)
    screen = _wait_screen(tmux, "Stub card")
    assert "card body: 記憶" in screen
    assert "…" in screen  # clipped, not wrapped past the edge
    time.sleep(0.05)
    assert "exceeds terminal width" not in _screen(tmux)
    subprocess.run([*tmux, "send-keys", "-t", "pi", "C-d"], check=True)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and not pienv.stub_records("exit"):
        time.sleep(0.05)
    assert pienv.stub_records("exit"), "Pi shut down normally (it did not crash on the card)"
