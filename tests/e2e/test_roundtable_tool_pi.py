"""`/persona-roundtable` in the real Pi TUI: the lead's `persona_roundtable` call, live (issue 13).

Real Pi under tmux, the real runtime in the sidecar, real Pi children, the fake model server.
The server plays every model: the MAIN session's lead answers the round-table request with
one ``persona_roundtable`` tool call (P-ROUNDTABLE-4) and later presents the tool's result;
children answer Round 1, Round 2 and the synthesis. Round 1 answers are held on a gate
until the test has seen the live display in the pane (P-ROUNDTABLE-17) — the test waits on
the server's request log and the screen, never on sleeps — and the synthesis must then be
on screen in full (P-ROUNDTABLE-16).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from persona_mind.persona.children._roundtable import REQUEST_MARKER, SECTIONS, SYNTHESIS_MARKER
from persona_mind.testing._fake_openai import FakeOpenAI, message_text

from .conftest import WAIT, PiEnv, wait_pane
from .test_bridge_tui import _quit, _readies, _start_real_tui, _type, _wait_reloaded

pytestmark = pytest.mark.e2e

QUERY = "Should the nightly export move to a queue?"
PICKS = [
    {"name": "architect", "reason": "weigh the queue against cron for the export"},
    {"name": "test-engineer", "reason": "say what proves the move is safe"},
]
BODIES = {
    "Perspectives": "architect favours a queue; test-engineer wants replay tests first.",
    "Disagreements": "whether replay tests must come before the switch.",
    "Tradeoffs": "a queue adds a broker to run; cron cannot retry one failed item.",
    "Decision": "move the export to a queue behind a flag after replay tests pass.",
    "Uncertainty": "broker cost at peak load is unmeasured.",
}
SYNTHESIS = "\n\n".join(f"## {title}\n{BODIES[title]}" for title, _ in SECTIONS)


def _user_text(body: dict[str, Any]) -> str:
    return "\n".join(message_text(m) for m in body.get("messages", []) if m.get("role") == "user")


def _is_main(body: dict[str, Any]) -> bool:
    """The main session offers our tools; children get only read-only built-ins."""
    names = {str(t.get("function", {}).get("name")) for t in body.get("tools") or []}
    return "persona_roundtable" in names or "persona_consult" in names


class LeadAndPanel(FakeOpenAI):
    """Answers by what each request is; Round 1 waits on ``gate`` (the children are slow)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def _record(self, body: dict[str, Any]) -> dict[str, Any]:
        super()._record(body)
        messages = body.get("messages", [])
        if _is_main(body):
            if messages and messages[-1].get("role") == "tool":
                return {"text_from_last_tool": ""}  # the lead presents the result as is
            if REQUEST_MARKER in _user_text(body):
                args = {"query": QUERY, "specialists": PICKS}
                return {"tool_calls": [{"name": "persona_roundtable", "arguments": args}]}
            return {"text": "ok"}
        user = _user_text(body)
        if SYNTHESIS_MARKER in user:
            return {"text": SYNTHESIS}
        if user.startswith("Round 1"):
            self.gate.wait(WAIT)
            return {"text": "R1-OPINION: a queue with retries."}
        return {"text": "R2-OPINION: a queue, once replay tests pass."}

    def main_requests(self) -> list[dict[str, Any]]:
        return [b for b in list(self.requests) if _is_main(b)]

    def round1_requests(self) -> int:
        bodies = [b for b in list(self.requests) if not _is_main(b)]
        return sum(1 for b in bodies if _user_text(b).startswith("Round 1"))


@pytest.fixture
def panel(pienv: PiEnv) -> Iterator[LeadAndPanel]:
    """The fake server for this test, in place of the plain one the Pi env points at."""
    server = LeadAndPanel()
    with server:
        pienv.fake.stop()
        agent = pienv.root / "agent"
        for name in ("models.json",):
            path = agent / name
            path.write_text(path.read_text().replace(pienv.fake.base_url, server.base_url))
        yield server
        server.gate.set()


def _wait_pane(tmux: list[str], *needles: str) -> str:
    """The whole pane with its scrollback (the synthesis may be taller than the screen)."""
    return wait_pane(tmux, *needles, timeout=WAIT * 2, scrollback=True)


def _wait_until(pred: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT * 2
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_roundtable_is_the_leads_tool_call_with_live_progress_and_the_full_synthesis(
    pienv: PiEnv, panel: LeadAndPanel, tmux: list[str]
) -> None:
    """P-ROUNDTABLE-2/4/16/17 in the real Pi: one tool call in the main session, progress
    in the TUI while children run, the synthesis shown in full."""
    _start_real_tui(pienv, tmux)
    _type(tmux, "/persona pack install software-team")
    wait_pane(tmux, "Installed official/software-team")
    before = _readies(pienv)
    _type(tmux, "/persona team select software-team")
    _wait_reloaded(pienv, before)
    wait_pane(tmux, "Reloaded keybindings")
    time.sleep(1.0)  # Pi rebuilds its editor after a reload; keys typed before that are lost
    _type(tmux, f"/persona-roundtable {QUERY}")

    # the MAIN session got the request and answered with exactly one persona_roundtable call
    _wait_until(lambda: panel.round1_requests() >= 2, "both Round 1 children")
    (first, *_) = panel.main_requests()
    assert REQUEST_MARKER in _user_text(first)
    assert QUERY in _user_text(first)
    tool = next(
        t["function"]
        for t in first["tools"]
        if t.get("function", {}).get("name") == "persona_roundtable"
    )
    item = tool["parameters"]["properties"]["specialists"]["items"]
    assert sorted(item["properties"]["name"]["enum"]) == [
        "architect",
        "code-reviewer",
        "security-reviewer",
        "test-engineer",
    ]
    assert item["required"] == ["name", "reason"]

    # mid-run: the live display is in the pane while Round 1 is held at the server
    live = _wait_pane(tmux, f"Round-table: {QUERY}", "Phase: independent", "architect [running")
    assert "test-engineer [" in live
    assert "weigh the queue against cron for the export" in live  # the roster's reasons
    assert "Context policy:" in live
    assert "Next: Round 2" in live
    assert "R1-OPINION" not in live  # never an opinion (P-ROUNDTABLE-18)
    assert SYNTHESIS not in live
    panel.gate.set()

    # the result: the lead's next request carries the whole synthesis, and it is on screen
    _wait_until(lambda: len(panel.main_requests()) >= 2, "the lead's turn after the tool")
    results = [
        message_text(m) for m in panel.main_requests()[1]["messages"] if m.get("role") == "tool"
    ]
    assert len(results) == 1
    assert SYNTHESIS + "\n\nDissent: " in results[0]  # then the dissent line (issue 26)
    assert "in full" in results[0]
    # the lead's answer is rendered as markdown: headings lose their "##"
    screen = _wait_pane(tmux, *BODIES.values())
    final = screen[screen.rindex(BODIES["Perspectives"]) :]
    positions = [final.find(body) for body in BODIES.values()]
    assert positions == sorted(positions), "all five sections, in order"
    assert "Round-table finished: moderator tech-lead" in screen
    calls = [
        c
        for b in panel.main_requests()
        for m in b["messages"]
        if m.get("role") == "assistant"
        for c in m.get("tool_calls") or []
    ]
    assert [c["function"]["name"] for c in calls] == ["persona_roundtable"]
    assert json.loads(calls[0]["function"]["arguments"])["specialists"] == PICKS
    _quit(pienv, tmux)
