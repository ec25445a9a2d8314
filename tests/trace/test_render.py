"""Timeline and Mermaid rendering of a trace (issue 2 item 5: "prints a timeline …
and emits a Mermaid sequence diagram")."""

from __future__ import annotations

import re

from persona_mind.trace import TraceEvent, render_mermaid, render_timeline
from tests.trace._helpers import sample_events


def test_timeline_has_a_header_and_one_row_per_event() -> None:
    lines = render_timeline(sample_events()).splitlines()
    assert lines[0].split() == [
        "ms",
        "actor",
        "event",
        "from",
        "type",
        "id",
        "corr",
        "gen",
        "reason",
    ]
    assert len(lines) == 1 + len(sample_events())


def test_timeline_rows_show_relative_ms_and_every_field() -> None:
    rows = [line.split() for line in render_timeline(sample_events()).splitlines()[1:]]
    assert rows[0] == ["0.000", "owner", "start", "-", "-", "-", "-", "-", "incarnation", "1"]
    assert rows[1] == ["1.000", "owner", "send", "host", "SessionStart", "#1", "c1", "1", "-"]
    assert rows[3] == ["3.000", "store", "send", "owner", "Mutate", "#2", "c1", "1", "-"]
    assert rows[7] == [
        "7.000",
        "store",
        "drop",
        "scheduler",
        "Mutate",
        "#3",
        "c3",
        "1",
        "stale-generation",
    ]
    assert rows[10][:3] == ["20.000", "child-runner", "child"]
    assert rows[10][-4:] == ["exit", "pid=4242", "argv0=pi", "code=0"]


def test_timeline_origin_keeps_the_clock_of_the_whole_file() -> None:
    tail = sample_events()[-1:]
    assert render_timeline(tail).splitlines()[1].split()[0] == "0.000"
    assert render_timeline(tail, origin=100.0).splitlines()[1].split()[0] == "30.000"


def test_timeline_columns_are_aligned() -> None:
    lines = render_timeline(sample_events()).splitlines()
    starts = {line.index("#2") for line in lines if "#2" in line}
    assert len(starts) == 1


def test_timeline_of_nothing_is_empty() -> None:
    assert render_timeline([]) == ""


def test_control_characters_cannot_forge_timeline_rows() -> None:
    event = TraceEvent(t=0.0, ev="crash", actor="evil\n0.000  root  stop", reason="\x1b[2Jx")
    text = render_timeline([event])
    assert len(text.splitlines()) == 2
    assert "\x1b" not in text
    assert "evil\\n0.000" in text


def _body(text: str) -> list[str]:
    return [
        line.strip() for line in text.splitlines()[1:] if not line.strip().startswith("participant")
    ]


def test_mermaid_diagram_of_a_run() -> None:
    text = render_mermaid(sample_events())
    lines = text.splitlines()
    assert lines[0] == "sequenceDiagram"
    assert [line.strip() for line in lines[1:6]] == [
        "participant owner",
        "participant host",
        "participant store",
        "participant child_runner as child-runner",
        "participant reminder",
    ]
    assert _body(text) == [
        "Note over owner: start: incarnation 1",
        "host->>owner: SessionStart #35;1",
        "owner->>store: Mutate #35;2",
        "store-->>owner: reply #35;2",
        "Note over store: drop Mutate #35;3: stale-generation",
        "Note over store: crash: OSError: disk full",
        "Note over store: restart: OSError: disk full",
        "Note over child_runner: child: exit pid=4242 argv0=pi code=0",
        "host-xreminder: Arm #35;4 (not delivered)",
    ]


def test_mermaid_takes_the_sender_from_the_send_when_the_deliver_lacks_it() -> None:
    events = [
        TraceEvent(t=0.0, ev="send", actor="b", sender="a", type="X", id=1),
        TraceEvent(t=0.1, ev="deliver", actor="b", type="X", id=1),
        TraceEvent(t=0.2, ev="reply", actor="b", id=1),
    ]
    assert _body(render_mermaid(events)) == ["a->>b: X #35;1", "b-->>a: reply #35;1"]


def test_mermaid_delivery_without_its_send_still_draws_an_arrow() -> None:
    events = [TraceEvent(t=0.0, ev="deliver", actor="b", sender="a", type="X", id=7)]
    assert _body(render_mermaid(events)) == ["a->>b: X #35;7"]


def test_mermaid_lifecycle_notes_carry_the_generation() -> None:
    events = [TraceEvent(t=0.0, ev="escalate", actor="root", gen=3, reason="store: boom")]
    assert _body(render_mermaid(events)) == ["Note over root: escalate gen 3: store: boom"]


def test_mermaid_participant_ids_are_sanitized_unique_and_not_keywords() -> None:
    names = ["store-io", "store_io", "end", "Note", "9lives", "a;b", "ünï", "", "host"]
    events = [
        TraceEvent(t=0.0, ev="deliver", actor=name, sender=None, type="X", id=i)
        for i, name in enumerate(names)
    ]
    text = render_mermaid(events)
    declared = re.findall(r"^    participant (\S+)(?: as (.*))?$", text, flags=re.MULTILINE)
    ids = [ident for ident, _ in declared]
    assert len(ids) == len(set(ids)) == len(names) + 1  # + the outside "host"
    for ident in ids:
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", ident), ident
        assert ident.lower() not in {"end", "note", "participant"}
    labels = dict(declared)
    assert labels["store_io"] == "store-io"
    assert labels["store_io_2"] == "store_io"  # the suffix makes it unique; the label stays
    assert labels["a_b"] == ""  # "a;b": ";" ends a Mermaid statement, so it becomes "_"
    assert ";" not in text.replace("#35;", "")
    assert labels["p_end"] == "end"
    assert labels["p_9lives"] == "9lives"
    assert labels["p_actor"] == "(empty name)"
    assert labels["_n_"] == "ünï"
    assert labels["host"] == ""  # the outside keeps the plain id
    assert labels["p_host"] == "host (actor)"  # a real actor called host is told apart


def test_mermaid_text_cannot_break_out_of_its_line() -> None:
    events = [
        TraceEvent(t=0.0, ev="send", actor="a", type="X;\nNote over a: forged", id=1),
        TraceEvent(
            t=0.1, ev="drop", actor="a", type="X", id=1, reason="<b>#35;</b>\nend" + "x" * 400
        ),
    ]
    text = render_mermaid(events)
    body = _body(text)
    assert len(body) == 1  # the send was settled by the drop: no lost arrow
    (note,) = body
    assert note.startswith("Note over a: drop X #35;1: ")
    assert not set(note[len("Note over a: drop X #35;1: ") :]) & set(";#<>\n")
    assert note.endswith("...")
    assert len(note) < 220


def test_mermaid_has_no_bare_hash_which_would_start_a_comment() -> None:
    # In Mermaid a bare "#" ends the text, so "Type #12" would show as "Type": the id is
    # written with the entity "#35;" (rendered "#"), and "#" from the trace is replaced.
    events = [*sample_events(), TraceEvent(t=200.0, ev="crash", actor="a#b", reason="#1 #2")]
    text = render_mermaid(events)
    assert "#" in text
    assert re.findall(r"#(?!35;)", text) == []


def test_mermaid_of_nothing_is_only_the_header() -> None:
    assert render_mermaid([]) == "sequenceDiagram\n"
