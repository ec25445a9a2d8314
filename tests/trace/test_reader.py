"""The trace reader is strict: every line decodes to a TraceEvent or the read fails,
naming the file, the 1-based line and what is wrong (issue 2 item 5; acceptance: a
malformed trace file gets a clear typed error)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from persona_mind.errors import PersonaMindError, TraceError
from persona_mind.trace import (
    EVENT_KINDS,
    TraceEvent,
    TraceFileError,
    TraceLineError,
    decode_line,
    iter_trace,
    read_trace,
)
from tests.trace._helpers import sample_events, write_trace

GOOD = '{"t":1.0,"ev":"send","actor":"a","id":1}'


def test_reads_back_exactly_what_the_writer_encoded(tmp_path: Path) -> None:
    events = sample_events()
    path = write_trace(tmp_path / "t.jsonl", events)
    assert read_trace(path) == events


def test_blank_lines_are_skipped_but_still_counted_for_line_numbers(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "t.jsonl", [GOOD, "", "   ", GOOD, "\t", '{"t":1,"ev":"nope"}'])
    with pytest.raises(TraceLineError) as caught:
        read_trace(path)
    assert caught.value.line == 6


def test_crlf_line_endings_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(f"{GOOD}\r\n{GOOD}\r\n".encode())
    assert len(read_trace(path)) == 2


def test_empty_file_is_an_empty_trace_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"")
    assert read_trace(path) == []


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('{"t":1.0,"ev":"send","actor":"a"', "truncated"),  # writer killed mid-line
        ('{"t":1.0,"ev":"send",actor:"a"}', "malformed"),
        ('{"t":1.0,"ev":"send","actor":"a"} {}', "trailing characters"),
        ("not json at all", "malformed"),
        ("[1, 2]", "Expected `object`, got `array`"),
        ("42", "Expected `object`, got `int`"),
        ('"send"', "Expected `object`, got `str`"),
        ("\ufeff" + GOOD, "malformed"),  # a BOM is not JSON
    ],
)
def test_malformed_json_names_file_line_and_problem(tmp_path: Path, line: str, needle: str) -> None:
    path = write_trace(tmp_path / "bad.jsonl", [GOOD, GOOD, line, GOOD])
    with pytest.raises(TraceLineError) as caught:
        read_trace(path)
    error = caught.value
    assert (error.path, error.line) == (str(path), 3)
    assert needle in error.problem
    assert f"{path}:3:" in str(error)
    assert "docs/trace.md" in str(error)  # says what to do


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ('{"t":"1.0","ev":"send","actor":"a"}', "$.t"),
        ('{"t":1.0,"ev":"send","actor":7}', "$.actor"),
        ('{"t":1.0,"ev":"send","actor":"a","id":"3"}', "$.id"),
        ('{"t":1.0,"ev":"send","actor":"a","id":3.5}', "$.id"),
        ('{"t":1.0,"ev":"send","actor":"a","gen":true}', "$.gen"),
        ('{"t":1.0,"ev":"send","actor":"a","corr":5}', "$.corr"),
        ('{"t":1.0,"ev":"send","actor":"a","sender":["x"]}', "$.sender"),
        ('{"t":1.0,"ev":"child","actor":"a","detail":[1]}', "$.detail"),
        ('{"v":"1","t":1.0,"ev":"send","actor":"a"}', "$.v"),
        ('{"t":1e999,"ev":"send","actor":"a"}', "$.t"),
    ],
)
def test_wrong_field_types_are_errors_not_coerced(tmp_path: Path, line: str, where: str) -> None:
    path = write_trace(tmp_path / "t.jsonl", [line])
    with pytest.raises(TraceLineError) as caught:
        read_trace(path)
    assert caught.value.line == 1
    assert where in caught.value.problem


def test_unknown_event_kind_is_an_error(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "t.jsonl", [GOOD, '{"t":1.0,"ev":"teleport","actor":"a"}'])
    with pytest.raises(TraceLineError) as caught:
        read_trace(path)
    assert caught.value.line == 2
    assert "'teleport'" in caught.value.problem
    assert "$.ev" in caught.value.problem


@pytest.mark.parametrize("missing", ["t", "ev", "actor"])
def test_missing_required_field_is_an_error(tmp_path: Path, missing: str) -> None:
    fields = {"t": 1.0, "ev": "deliver", "actor": "a"}
    del fields[missing]
    path = write_trace(tmp_path / "t.jsonl", [msgspec.json.encode(fields)])
    with pytest.raises(TraceLineError) as caught:
        read_trace(path)
    assert f"missing required field `{missing}`" in caught.value.problem


def test_invalid_utf8_is_an_error(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "t.jsonl", [GOOD, b'{"t":1.0,"ev":"send","actor":"\xff"}'])
    with pytest.raises(TraceLineError) as caught:
        read_trace(path)
    assert caught.value.line == 2
    assert "UTF-8" in caught.value.problem


@pytest.mark.parametrize(("version", "ok"), [(-1, False), (0, False), (1, True), (2, True)])
def test_schema_version_must_be_positive_and_newer_versions_still_read(
    version: int, *, ok: bool
) -> None:
    line = f'{{"v":{version},"t":1.0,"ev":"send","actor":"a"}}'.encode()
    if ok:
        assert decode_line(line).v == version
    else:
        with pytest.raises(TraceLineError, match="schema version"):
            decode_line(line)


def test_unknown_fields_are_ignored_for_forward_compatibility() -> None:
    event = decode_line(b'{"t":1.0,"ev":"send","actor":"a","future":{"x":1},"id":9}')
    assert event == TraceEvent(t=1.0, ev="send", actor="a", id=9)


def test_integer_time_is_accepted_as_seconds() -> None:
    assert decode_line(b'{"t":3,"ev":"stop","actor":"a"}').t == 3.0


def test_the_first_bad_line_is_reported_and_earlier_events_were_streamed(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "t.jsonl", [GOOD, GOOD, "{", "}"])
    seen: list[TraceEvent] = []
    with pytest.raises(TraceLineError) as caught:
        seen.extend(iter_trace(path))
    assert len(seen) == 2
    assert caught.value.line == 3


def test_missing_file_is_a_typed_error_naming_the_path(tmp_path: Path) -> None:
    path = tmp_path / "nope.jsonl"
    with pytest.raises(TraceFileError) as caught:
        read_trace(path)
    assert str(path) in str(caught.value)
    assert "no such file" in str(caught.value)
    assert "PERSONA_MIND_TRACE" in str(caught.value)  # says how a trace is made


def test_a_directory_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(TraceFileError, match="directory"):
        read_trace(tmp_path)


def test_reader_errors_are_trace_errors() -> None:
    assert issubclass(TraceLineError, TraceError)
    assert issubclass(TraceFileError, TraceError)
    assert issubclass(TraceError, PersonaMindError)


_names = st.text(min_size=0, max_size=12)
_events = st.builds(
    TraceEvent,
    v=st.integers(1, 3),
    t=st.floats(allow_nan=False, allow_infinity=False),
    ev=st.sampled_from(EVENT_KINDS),
    actor=_names,
    sender=st.none() | _names,
    type=st.none() | _names,
    id=st.none() | st.integers(0, 2**63 - 1),
    corr=st.none() | _names,
    gen=st.none() | st.integers(-(2**31), 2**31),
    reason=st.none() | _names,
    detail=st.none() | st.dictionaries(_names, st.none() | st.integers() | _names, max_size=3),
)


@given(_events)
def test_every_encodable_event_round_trips_through_one_line(event: TraceEvent) -> None:
    line = msgspec.json.encode(event)
    assert b"\n" not in line  # one event is always exactly one line
    assert decode_line(line) == event
