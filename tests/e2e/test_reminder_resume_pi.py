"""Issue 13 acceptance in a real Pi: a reminder acknowledged before a restart and
``--continue`` (a resume) is not shown again after it (M-REMINDER-3), and the wake arrives
as a display-only card plus a short toast (M-REMINDER-1).  Fake model server on 127.0.0.1.
"""

from __future__ import annotations

import pytest

from .conftest import PiEnv

pytestmark = pytest.mark.e2e

TEXT = "REMIND-8842 check the nightly build"


def _wakes(notes: list[str]) -> list[str]:
    return [n for n in notes if n.startswith("Backlog reminder")]


def test_acknowledged_reminder_is_not_shown_again_after_continue(real: PiEnv) -> None:
    add = {"action": "add", "text": TEXT, "remind_in_minutes": 0.01}  # due in 0.6 s
    real.fake.push({"tool_calls": [{"name": "backlog", "arguments": add}]}, {"text": "ok"})
    with real.rpc(session=True) as rpc:
        rpc.prompt("track the nightly build for me")
        assert "REMIND-8842" in real.fake.tool_results(-1)[-1]
        rpc.wait_notify("Backlog reminder")
        rpc.prompt("anything else?")  # a settled turn re-arms: still no second wake
        first = _wakes(rpc.notifications())
        entries = rpc.call({"type": "get_entries"})["data"]["entries"]
        acks = [e for e in entries if e.get("customType") == "persona-mind-reminder-ack"]
    assert len(acks) == 1, entries
    assert any("REMIND-8842" in n for n in first)  # the card's notice in rpc mode
    assert "Backlog reminder" in first  # the short toast (M-REMINDER-1)
    with real.rpc("--continue", session=True) as rpc:
        rpc.prompt("back again")
        rpc.prompt("and once more")
        assert _wakes(rpc.notifications()) == []
