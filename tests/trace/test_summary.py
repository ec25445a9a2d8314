"""The --summary view: counts per actor × event, drops by reason, restarts, anomalies."""

from __future__ import annotations

import msgspec

from persona_mind.trace import EventKind, TraceEvent, TraceSummary, render_summary, summarize
from tests.trace._helpers import sample_events


def test_summary_counts_per_actor_and_event_kind() -> None:
    summary = summarize(sample_events())
    assert summary.events == 12
    assert abs(summary.span_ms - 30.0) < 1e-6
    assert summary.per_actor == {
        "child-runner": {"child": 1},
        "owner": {"send": 1, "deliver": 1, "start": 1},
        "reminder": {"send": 1},
        "store": {"send": 2, "deliver": 1, "drop": 1, "reply": 1, "crash": 1, "restart": 1},
    }
    assert summary.drops_by_reason == {"stale-generation": 1}
    assert summary.restarts == {"store": 1}
    assert summary.crashes == {"store": 1}
    assert summary.escalations == {}


def test_summary_finds_undelivered_and_duplicate_deliveries() -> None:
    events = [
        TraceEvent(t=0.0, ev="send", actor="a", id=1),
        TraceEvent(t=0.1, ev="deliver", actor="a", id=1),
        TraceEvent(t=0.2, ev="deliver", actor="a", id=1),  # a kernel bug this view must show
        TraceEvent(t=0.3, ev="send", actor="a", id=2),
        TraceEvent(t=0.4, ev="send", actor="a", id=3),
        TraceEvent(t=0.5, ev="drop", actor="a", id=3),
    ]
    summary = summarize(events)
    assert summary.undelivered == [2]
    assert summary.duplicate_deliveries == [1]
    assert summary.drops_by_reason == {"unknown": 1}


def test_a_clean_run_has_no_anomalies() -> None:
    kinds: list[EventKind] = ["send", "deliver"] * 3
    events = [TraceEvent(t=float(i), ev=kind, actor="a", id=i // 2) for i, kind in enumerate(kinds)]
    summary = summarize(events)
    assert summary.undelivered == []
    assert summary.duplicate_deliveries == []


def test_summary_of_nothing() -> None:
    summary = summarize([])
    assert (summary.events, summary.span_ms, summary.per_actor) == (0, 0.0, {})
    assert render_summary(summary).splitlines()[0] == "0 events over 0.000 ms"


def test_summary_text_is_a_table_then_the_aggregates() -> None:
    lines = render_summary(summarize(sample_events())).splitlines()
    assert lines[0] == "12 events over 30.000 ms"
    assert lines[1].split() == [
        "actor",
        "send",
        "deliver",
        "drop",
        "reply",
        "start",
        "crash",
        "restart",
        "child",
    ]
    assert lines[5].split() == ["store", "2", "1", "1", "1", "0", "1", "1", "0"]
    assert "drops by reason:" in lines
    assert "  stale-generation: 1" in lines
    assert "restarts:" in lines
    assert "escalations: none" in lines
    assert lines[-2] == "undelivered (sent, never delivered or dropped): #4"
    assert lines[-1] == "delivered more than once: none"


def test_long_anomaly_lists_are_cut_with_a_count() -> None:
    events = [TraceEvent(t=0.0, ev="send", actor="a", id=i) for i in range(25)]
    last = render_summary(summarize(events)).splitlines()[-2]
    assert last.endswith("#19, … (5 more)")


def test_summary_is_json_encodable_and_decodes_back() -> None:
    summary = summarize(sample_events())
    assert msgspec.json.decode(msgspec.json.encode(summary), type=TraceSummary) == summary
