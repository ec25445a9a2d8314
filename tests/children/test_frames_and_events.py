"""Frame splitting under arbitrary chunking (property) and Pi event folding (unit)."""

from __future__ import annotations

import itertools

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from persona_mind.children import ChildModelError, ChildProtocolError
from persona_mind.runners._child_events import EventState
from persona_mind.runners._child_process import FrameReader
from tests.children._helpers import request


class Chunks:
    """A ByteReceiveStream stand-in that returns fixed chunks, then EOF."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if not self.chunks:
            raise anyio.EndOfStream
        return self.chunks.pop(0)


frames_st = st.lists(st.binary(max_size=300).map(lambda b: b.replace(b"\n", b"")), max_size=8)


@settings(max_examples=200, deadline=None)
@given(frames=frames_st, cuts=st.lists(st.integers(min_value=0, max_value=3000), max_size=12))
def test_frames_survive_any_chunking(frames: list[bytes], cuts: list[int]) -> None:
    """Whatever the pipe's chunk boundaries, the same frames come out (\\n only splits)."""
    data = b"".join(f + b"\n" for f in frames)
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    chunks = [data[a:b] for a, b in itertools.pairwise(points) if b > a]

    async def read_all() -> list[bytes]:
        reader = FrameReader(Chunks(chunks), limit=10_000, label="t")  # type: ignore[arg-type]
        out = []
        while (frame := await reader.read()) is not None:
            out.append(frame)
        return out

    assert anyio.run(read_all) == frames


def test_unicode_line_separators_do_not_split_frames() -> None:
    """U+2028/U+2029 are valid inside JSON strings; only LF ends a frame (Pi rpc.md)."""
    payload = '{"t":"a\u2028b\u2029c"}'.encode()

    async def read() -> list[bytes]:
        reader = FrameReader(Chunks([payload + b"\n"]), limit=1000, label="t")  # type: ignore[arg-type]
        return [await reader.read() or b"", await reader.read() or b"<eof>"]

    assert anyio.run(read) == [payload, b"<eof>"]


def end(text: str, stop: str = "stop", inp: int = 10, out: int = 2) -> bytes:
    import json  # noqa: PLC0415

    msg = {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "stopReason": stop,
        "usage": {
            "input": inp,
            "output": out,
            "cacheRead": 1,
            "cacheWrite": 2,
            "cost": {"total": 0.5},
        },
    }
    return json.dumps({"type": "message_end", "message": msg}).encode()


def test_usage_sums_over_turns_and_the_last_answer_wins() -> None:
    state = EventState(request())
    state.feed(end("calling a tool", "toolUse", 100, 5))
    state.feed(b'{"type":"tool_execution_start","toolName":"read"}')
    state.feed(end("final answer", "stop", 150, 7) + b"\r")
    state.feed(b"   ")
    assert state.result() == ("final answer", "stop")
    assert state.usage.input_tokens == 250
    assert state.usage.output_tokens == 12
    assert state.usage.cache_read_tokens == 2
    assert state.usage.cost == 1.0


def test_user_messages_and_unknown_events_are_ignored() -> None:
    state = EventState(request())
    assert state.feed(b'{"type":"message_end","message":{"role":"user","content":"hi"}}') is None
    assert state.feed(b'{"type":"queue_update"}') is None
    with pytest.raises(ChildModelError, match="without an assistant answer"):
        state.result()


@pytest.mark.parametrize(
    ("record", "done"),
    [
        (b'{"type":"agent_end","willRetry":true}', False),
        (b'{"type":"agent_end","willRetry":false}', False),  # 1.x: wait for agent_settled
        (b'{"type":"agent_end"}', True),  # 0.7x: no willRetry, no agent_settled
        (b'{"type":"agent_settled","aborted":false}', True),
    ],
)
def test_run_done_follows_pi_versions(record: bytes, done: bool) -> None:
    state = EventState(request())
    state.feed(record)
    assert state.run_done is done


@pytest.mark.parametrize(
    ("frame", "match"),
    [
        (b"[1, 2]", "not a JSON object"),
        (b"garbage", "not JSON"),
        (b'{"type":"response","command":"prompt","success":false,"error":"busy"}', "busy"),
        (b'{"type":"response","command":"parse","success":false,"error":"bad"}', "bad"),
    ],
)
def test_protocol_errors(frame: bytes, match: str) -> None:
    with pytest.raises(ChildProtocolError, match=match):
        EventState(request()).feed(frame)


def test_a_refused_side_command_is_not_fatal() -> None:
    """An old Pi without set_auto_retry answers 'Unknown command'; the run goes on."""
    state = EventState(request())
    assert state.feed(b'{"type":"response","command":"set_auto_retry","success":false}') is None


@pytest.mark.parametrize(
    ("stop", "text", "match"),
    [
        ("error", "", "stopReason error"),
        ("stop", "   ", "empty answer"),
    ],
)
def test_model_failures(stop: str, text: str, match: str) -> None:
    state = EventState(request())
    state.feed(end(text, stop))
    with pytest.raises(ChildModelError, match=match):
        state.result()
