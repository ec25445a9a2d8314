"""Relayed blocked reports may suggest backlog items; nothing else does (M-CAPTURE-7..10)."""

from __future__ import annotations

import pytest

from persona_mind.mind._relay import MAX_RELAYS, RelayTracker


def test_visible_relayed_blocked_report_suggests_M_CAPTURE_8() -> None:
    t = RelayTracker()
    t.nested_result("call-1", "status: blocked waiting for DB credentials")
    out = t.parent_result("delegate", "call-1", visible=True)
    assert [s.text for s in out] == ["waiting for DB credentials"]


@pytest.mark.parametrize(
    ("tool", "visible", "report"),
    [
        ("delegate", False, "status: blocked x"),  # not relayed: discarded (M-CAPTURE-9)
        ("bash", True, "status: blocked x"),  # not a relay tool
        ("council", True, "status: done"),  # not blocked
    ],
)
def test_no_suggestion_otherwise(tool: str, visible: bool, report: str) -> None:
    t = RelayTracker()
    t.nested_result("c", report)
    assert t.parent_result(tool, "c", visible=visible) == []


def test_provenance_only_from_parent_id_M_CAPTURE_7() -> None:
    t = RelayTracker()
    t.nested_result(None, "status: blocked guessed")  # no parentToolCallId: ignored
    t.nested_result("other", "status: blocked elsewhere")
    assert t.parent_result("flow", "call-1", visible=True) == []


@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_bounded_and_cleared_at_settlement_M_CAPTURE_10(delta: int) -> None:
    t = RelayTracker()
    for i in range(MAX_RELAYS + delta):
        t.nested_result(f"p{i}", "status: blocked")
    assert len(t.nested) == min(MAX_RELAYS + delta, MAX_RELAYS)
    assert t.dropped == max(0, delta)
    t.settle()
    assert t.nested == {}
