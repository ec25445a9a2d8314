"""The interactive TUI under tmux shows the extension loaded and serving (issue 7 acceptance).

Runs the real Pi full-screen in a private tmux server (``tmux -L <unique>``), checks the
startup listing and our status line with ``capture-pane``, runs a runtime command, quits
with Ctrl+D and checks the sidecar saw ``session_shutdown``.
"""

from __future__ import annotations

import shlex
import subprocess
import time

import pytest

from .conftest import WAIT, PiEnv, capture_pane, wait_pane

pytestmark = pytest.mark.e2e


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
    # both on screen: under load Pi can draw the ready notice before its startup listing
    screen = wait_pane(tmux, "persona-mind ready (4 tools)", "[Extensions]")
    listing = screen.split("[Extensions]", 1)[1].strip().splitlines()
    assert listing[0].strip() == "persona-mind"  # Pi's startup listing names our extension
    subprocess.run([*tmux, "send-keys", "-t", "pi", "-l", "/stub-note from tui"], check=True)
    subprocess.run([*tmux, "send-keys", "-t", "pi", "Enter"], check=True)
    screen = wait_pane(tmux, "saved note 'from tui'")
    assert "notes=1" in screen  # the runtime's set_status reached the footer
    screen = wait_pane(tmux, "card body: from tui")  # display(): a card, not a message
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
    wait_pane(tmux, "persona-mind ready")
    wide = "記憶" * 40 + " end"
    subprocess.run([*tmux, "send-keys", "-t", "pi", "-l", f"/stub-note {wide}"], check=True)
    subprocess.run([*tmux, "send-keys", "-t", "pi", "Enter"], check=True)
    screen = wait_pane(tmux, "Stub card")
    assert "card body: 記憶" in screen
    assert "…" in screen  # clipped, not wrapped past the edge
    time.sleep(0.05)
    assert "exceeds terminal width" not in capture_pane(tmux)
    subprocess.run([*tmux, "send-keys", "-t", "pi", "C-d"], check=True)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and not pienv.stub_records("exit"):
        time.sleep(0.05)
    assert pienv.stub_records("exit"), "Pi shut down normally (it did not crash on the card)"


# -- issue 17, scope 6: the real runtime's commands in the TUI and in print mode -------------


def _start_real_tui(pienv: PiEnv, tmux: list[str]) -> None:
    del pienv.env["PERSONA_MIND_SIDECAR_RUNTIME"]  # the real Runtime (Mind + Persona)
    (pienv.cwd / ".git").mkdir()
    env = {**pienv.env, "TERM": "xterm-256color", "HOME": str(pienv.root), "LANG": "C.UTF-8"}
    assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    command = f"exec env -i {assignments} {shlex.join(pienv.argv())}"
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "pi", "-x", "160", "-y", "60", "-c",
         str(pienv.cwd), command],
        check=True,
    )  # fmt: skip
    wait_pane(tmux, "persona-mind ready")


def _type(tmux: list[str], line: str) -> None:
    subprocess.run([*tmux, "send-keys", "-t", "pi", "-l", line], check=True)
    subprocess.run([*tmux, "send-keys", "-t", "pi", "Enter"], check=True)


def _readies(pienv: PiEnv) -> int:
    log = pienv.bridge_log.read_text() if pienv.bridge_log.exists() else ""
    return log.count(" ready pid=")


def _wait_reloaded(pienv: PiEnv, before: int) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and _readies(pienv) <= before:
        time.sleep(0.05)
    assert _readies(pienv) > before, "the extension never came back after the reload"


def _quit(pienv: PiEnv, tmux: list[str]) -> None:
    subprocess.run([*tmux, "send-keys", "-t", "pi", "C-d"], check=True)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and "session_shutdown done" not in (
        pienv.bridge_log.read_text()
    ):
        time.sleep(0.05)


def test_mind_status_is_shown_once(pienv: PiEnv, tmux: list[str]) -> None:
    """`/mind status`: one card with the report, not a collapsed card and the report again."""
    _start_real_tui(pienv, tmux)
    _type(tmux, "/mind status")
    screen = wait_pane(tmux, "backlog: 0 active items")
    time.sleep(0.5)  # a second copy (the old notice) would be drawn by now
    screen = capture_pane(tmux)
    assert screen.count("Mind status") == 1, screen
    assert screen.count("capture: auto") == 1, screen
    _quit(pienv, tmux)


def test_persona_confirmations_survive_the_reload_and_the_footer_names_the_persona(
    pienv: PiEnv, tmux: list[str]
) -> None:
    _start_real_tui(pienv, tmux)
    _type(tmux, "/persona pack install software-team")
    wait_pane(tmux, "Installed official/software-team")
    before = _readies(pienv)
    _type(tmux, "/persona team select software-team")
    _wait_reloaded(pienv, before)
    wait_pane(tmux, "persona-mind ready")
    screen = wait_pane(tmux, "This session's team is now official/software-team")
    wait_pane(tmux, "Reloaded keybindings")
    time.sleep(1.0)  # Pi rebuilds its editor after a reload; keys typed before that are lost
    _type(tmux, "/persona use architect")
    screen = wait_pane(tmux, "persona: official/software-team/architect")  # the footer
    screen = wait_pane(tmux, "Persona mode: architect")
    # the team switch's confirmation is still there, after its reload and the next command
    assert "This session's team is now official/software-team" in screen
    _quit(pienv, tmux)


def test_a_command_in_print_mode_prints_its_answer(pienv: PiEnv) -> None:
    """`pi -p "/mind status"`: the report reaches stdout, not only the bridge log."""
    del pienv.env["PERSONA_MIND_SIDECAR_RUNTIME"]
    proc = pienv.run_print("/mind status")
    assert proc.returncode == 0, proc.stderr
    assert "Mind status" in proc.stdout
    assert "backlog:" in proc.stdout
