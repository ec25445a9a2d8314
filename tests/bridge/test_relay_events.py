"""Issue 13 item 2 on the wire: the extension's custom-message input and tool results decode
to typed host events; an over-long tool text is a clear error, never silently cut."""

from __future__ import annotations

import json

import msgspec
import pytest

from persona_mind.messages import bridge as b
from persona_mind.messages.host import (
    DEFERRED_INPUT_TYPE,
    MAX_TOOL_TEXT,
    Input,
    ToolExecutionEnd,
)
from tests.bridge.test_sidecar import Peer

DECODE = msgspec.json.Decoder(b.EventParams)


def test_extension_wire_shapes_decode_to_typed_events() -> None:
    """The exact objects ``index.ts`` forwards (see ``forwardCustomMessage``/``forwardToolEnd``)."""
    deferred = DECODE.decode(
        json.dumps(
            {
                "event": {
                    "type": "Input",
                    "text": "Remember that x",
                    "source": "extension",
                    "custom_type": DEFERRED_INPUT_TYPE,
                }
            }
        )
    ).event
    assert isinstance(deferred, Input)
    assert deferred.deferred
    nested = DECODE.decode(
        json.dumps(
            {
                "event": {
                    "type": "ToolExecutionEnd",
                    "tool_call_id": "call_1/1",
                    "parent_tool_call_id": "call_1",
                    "tool_name": "worker_report",
                    "is_error": False,
                    "text": "status: blocked",
                    "truncated": False,
                }
            }
        )
    ).event
    assert nested == ToolExecutionEnd(
        tool_call_id="call_1/1",
        parent_tool_call_id="call_1",
        tool_name="worker_report",
        text="status: blocked",
    )
    # an older extension: no custom_type, no parent id — both default
    old = DECODE.decode(b'{"event":{"type":"Input","text":"hi"}}').event
    assert isinstance(old, Input)
    assert old.custom_type is None
    assert not old.deferred


@pytest.mark.parametrize(("extra", "ok"), [(0, True), (1, False)])
def test_tool_text_bound(extra: int, ok: bool) -> None:
    wire = json.dumps(
        {
            "event": {
                "type": "ToolExecutionEnd",
                "tool_call_id": "c",
                "tool_name": "t",
                "text": "x" * (MAX_TOOL_TEXT + extra),
            }
        }
    )
    if ok:
        assert len(DECODE.decode(wire).event.text) == MAX_TOOL_TEXT  # type: ignore[union-attr]
    else:
        with pytest.raises(msgspec.ValidationError, match="length <= 8000"):
            DECODE.decode(wire)


@pytest.mark.asyncio
async def test_sidecar_answers_an_over_long_tool_text_with_bad_params() -> None:
    peer = Peer()
    assert (await peer.ready())["type"] == "ready"
    event = {
        "type": "ToolExecutionEnd",
        "tool_call_id": "c",
        "tool_name": "t",
        "text": "x" * (MAX_TOOL_TEXT + 1),
    }
    ident = peer.request("event", {"event": event})
    resp = await peer.recv()
    assert (resp["id"], resp["error"]["code"]) == (ident, "bad_params")
    assert "8000" in resp["error"]["message"]
    ok = peer.request("event", {"event": {**event, "text": "fine"}})
    resp = await peer.recv()
    assert (resp["id"], resp["result"]) == (ok, None)
    await peer.side.stop(0)
