"""The sidecar frame codec: typed frames, bad lines classified, LF-only splitting with a cap."""

from __future__ import annotations

import itertools

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from persona_mind.messages import bridge as b
from persona_mind.messages.host import BeforeAgentStart, PromptInjection, ToolSpec


def test_frames_round_trip_with_type_tags() -> None:
    frames: list[b.Frame] = [
        b.Hello(protocol=1, host_version="1.6.0"),
        b.Ready(protocol=1, pid=3, tools=(ToolSpec(name="t", description="d", parameters={}),)),
        b.Request(
            id=1, method="event", params=b.raw(b.EventParams(event=BeforeAgentStart(prompt="p")))
        ),
        b.Response(id=1, result=b.raw(PromptInjection(sections=("S",)))),
        b.Response(id=2, error=b.ErrorBody(code="failed", message="m")),
        b.Notify(method="cancel", params=b.raw({"id": 4})),
        b.ErrorFrame(code="malformed", message="m"),
    ]
    for frame in frames:
        line = b.encode_frame(frame)
        assert line.endswith(b"\n")
        assert line.count(b"\n") == 1
        back = b.decode_frame(line[:-1])
        assert type(back) is type(frame)
        assert msgspec.json.encode(back) == msgspec.json.encode(frame)
    wire = msgspec.json.decode(b.encode_frame(frames[2]))
    assert wire["type"] == "request"
    assert wire["params"]["event"]["type"] == "BeforeAgentStart"


def test_unknown_fields_are_ignored_for_forward_compatibility() -> None:
    frame = b.decode_frame(b'{"type":"hello","protocol":1,"future_field":true}')
    assert isinstance(frame, b.Hello)


@pytest.mark.parametrize(
    ("line", "code", "ident"),
    [
        (b"{not json", "malformed", None),
        (b"[1,2]", "malformed", None),
        (b'"hello"', "malformed", None),
        (b'{"id":3}', "unknown_type", 3),
        (b'{"type":"gossip","id":3}', "unknown_type", 3),
        (b'{"type":"request","id":5}', "malformed", 5),
        (b'{"type":"request","id":"5","method":"ping"}', "malformed", None),
        (b'{"type":"response","id":5,"error":7}', "malformed", None),
        (b"\xff\xfe", "malformed", None),
    ],
)
def test_bad_lines_become_error_frames(line: bytes, code: str, ident: int | None) -> None:
    frame = b.decode_frame(line)
    assert isinstance(frame, b.BadFrame)
    assert frame.reply.code == code
    assert frame.reply.id == ident
    assert frame.reply.message


def test_splitter_only_splits_on_lf() -> None:
    s = b.LineSplitter(100)
    assert s.feed("a\u2028b\rc".encode()) == []
    assert s.feed(b"d\nef\n") == ["a\u2028b\rcd".encode(), b"ef"]
    assert s.pending == 0


@pytest.mark.parametrize(("size", "ok"), [(9, True), (10, True), (11, False)])
def test_splitter_cap_at_n_minus_one_n_n_plus_one(size: int, ok: bool) -> None:
    s = b.LineSplitter(10)
    out = s.feed(b"x" * size + b"\nnext\n")
    assert out == [b"x" * size if ok else None, b"next"]


@pytest.mark.parametrize(("size", "ok"), [(9, True), (10, True), (11, False)])
def test_splitter_cap_across_chunks(size: int, ok: bool) -> None:
    s = b.LineSplitter(10)
    out: list[bytes | None] = []
    for _ in range(size):
        out += s.feed(b"y")
        assert s.pending <= 10
    out += s.feed(b"\nafter\n")
    assert out == [b"y" * size if ok else None, b"after"]


def test_splitter_skips_a_huge_line_without_buffering_it() -> None:
    s = b.LineSplitter(10)
    out = s.feed(b"z" * 50)
    assert out == [None]
    assert s.pending == 0
    assert s.feed(b"z" * 50) == []  # still skipping, reported once
    assert s.feed(b"zz\nok\n") == [b"ok"]


@given(
    lines=st.lists(st.binary(max_size=40).map(lambda x: x.replace(b"\n", b"")), max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=20),
    cap=st.integers(min_value=1, max_value=30),
)
def test_splitter_is_independent_of_chunking(lines: list[bytes], cuts: list[int], cap: int) -> None:
    """Whatever the pipe's chunking, the same lines (or skip markers) come out, in order."""
    stream = b"".join(line + b"\n" for line in lines)
    points = sorted({c for c in cuts if c < len(stream)} | {0, len(stream)})
    splitter = b.LineSplitter(cap)
    out: list[bytes | None] = []
    for start, end in itertools.pairwise(points):
        out += splitter.feed(stream[start:end])
    assert out == [line if len(line) <= cap else None for line in lines]
    assert splitter.pending == 0


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(st.integers(-b.MAX_ID, b.MAX_ID), _JSON)
def test_response_line_is_the_encoded_response_frame(ident: int, result: object) -> None:
    """The sidecar's one-encode answer is byte for byte the frame ``encode_frame`` writes."""
    assert b.response_line(ident, result) == b.encode_frame(
        b.Response(id=ident, result=b.raw(result))
    )


def test_response_line_encodes_structs_like_the_frame() -> None:
    injection = PromptInjection(sections=('a "quoted"\nline', "é"))
    line = b.response_line(7, injection)
    assert line == b.encode_frame(b.Response(id=7, result=b.raw(injection)))
    back = b.decode_frame(line[:-1])
    assert isinstance(back, b.Response)
    assert back.error is None
    assert msgspec.json.decode(back.result, type=PromptInjection) == injection
