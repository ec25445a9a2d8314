"""The sidecar protocol engine, driven in-process (issue 7: frames, HostPort, never crash)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import pytest_asyncio

from persona_mind.bridge import sidecar
from persona_mind.bridge.sidecar import Sidecar
from persona_mind.children import PiBackend
from persona_mind.errors import HostError
from persona_mind.messages import bridge as b
from persona_mind.messages.host import (
    AgentStart,
    BeforeAgentStart,
    CommandCall,
    CustomEntry,
    Input,
    SessionStart,
    ToolCall,
)
from persona_mind.testing import wait_all_tasks_blocked
from tests.bridge.stub_runtime import StubRuntime


class Peer:
    """Plays the Pi extension: writes frames into the sidecar, reads what it sends."""

    def __init__(self, **kwargs: Any) -> None:
        self.out: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.side = Sidecar(self._recv, lambda: StubRuntime, **kwargs)
        self.next_id = 100

    def _recv(self, line: bytes) -> None:
        assert line.endswith(b"\n")
        self.out.put_nowait(json.loads(line))

    def send(self, frame: b.Frame | bytes) -> None:
        self.side.feed(frame if isinstance(frame, bytes) else b.encode_frame(frame))

    async def recv(self) -> dict[str, Any]:
        return await asyncio.wait_for(self.out.get(), 5)

    def request(self, method: str, params: object) -> int:
        self.next_id += 1
        self.send(b.Request(id=self.next_id, method=method, params=b.raw(params)))
        return self.next_id

    async def ready(self) -> dict[str, Any]:
        self.send(b.Hello(protocol=b.PROTOCOL_VERSION, agent_dir="/tmp/agent"))
        return await self.recv()


@pytest_asyncio.fixture
async def peer() -> AsyncIterator[Peer]:
    p = Peer()
    ready = await p.ready()
    assert ready["type"] == "ready"
    yield p
    await p.side.stop(0)


def start_event() -> SessionStart:
    return SessionStart(reason="startup", session_id="s1", cwd="/w")


@pytest.mark.asyncio
async def test_hello_answers_ready_with_the_runtime_specs() -> None:
    p = Peer()
    ready = await p.ready()
    assert ready["protocol"] == b.PROTOCOL_VERSION
    assert [t["name"] for t in ready["tools"]] == [
        "stub_echo",
        "stub_slow",
        "stub_boom",
        "stub_die",
    ]
    assert ready["tools"][0]["parameters"]["required"] == ["text"]
    assert [c["name"] for c in ready["commands"]] == ["stub-note", "stub-reload", "stub-tools"]
    assert ready["startup_ms"] >= 0
    assert p.side.state == "ready"
    await p.side.stop(0)
    assert p.side.done.result() == 0


@pytest.mark.asyncio
async def test_wrong_protocol_version_is_refused_and_nothing_starts() -> None:
    p = Peer()
    p.send(b.Hello(protocol=b.PROTOCOL_VERSION + 1))
    err = await p.recv()
    assert err["type"] == "error"
    assert err["code"] == "protocol_version"
    assert p.side.state == "new"
    p.send(b.Hello(protocol=b.PROTOCOL_VERSION))  # the right one still works afterwards
    assert (await p.recv())["type"] == "ready"
    await p.side.stop(0)


@pytest.mark.asyncio
async def test_requests_before_ready_are_refused_not_queued() -> None:
    p = Peer()
    ident = p.request("tool", ToolCall(call_id="c", name="stub_echo", arguments={"text": "x"}))
    resp = await p.recv()
    assert resp == {
        "type": "response",
        "id": ident,
        "result": None,
        "error": {"code": "not_ready", "message": resp["error"]["message"]},
    }
    await p.side.stop(0)


@pytest.mark.asyncio
async def test_runtime_that_fails_to_start_reports_and_exits_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STUB_RUNTIME_FAIL_START", "1")
    p = Peer()
    err = await p.ready()
    assert err["type"] == "error"
    assert err["code"] == "failed"
    assert "told to fail" in err["message"]
    assert await asyncio.wait_for(p.side.done, 5) == 1


@pytest.mark.asyncio
async def test_before_agent_start_returns_the_injection(peer: Peer) -> None:
    ident = peer.request("event", b.EventParams(event=BeforeAgentStart(prompt="hi")))
    resp = await peer.recv()
    assert resp["id"] == ident
    assert resp["result"]["sections"] == ["STUB-MEMORY-1 notes=[]"]


@pytest.mark.asyncio
async def test_other_events_answer_null_and_apply_in_order(
    peer: Peer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = (CustomEntry(custom_type="stub-note", data={"text": "n1"}),)
    peer.request(
        "event",
        b.EventParams(
            event=SessionStart(reason="resume", session_id="s", cwd="/w", entries=entries)
        ),
    )
    peer.send(b.Notify(method="event", params=b.raw(b.EventParams(event=Input(text="x")))))
    peer.send(b.Notify(method="event", params=b.raw(b.EventParams(event=AgentStart()))))
    peer.request("event", b.EventParams(event=BeforeAgentStart(prompt="p")))
    first, second = await peer.recv(), await peer.recv()
    assert first["result"] is None
    assert second["result"]["sections"] == ["STUB-MEMORY-1 notes=[n1]"]  # restored before


@pytest.mark.asyncio
async def test_tool_call_uses_the_host_port_and_answers(peer: Peer) -> None:
    ident = peer.request(
        "tool", ToolCall(call_id="c1", name="stub_echo", arguments={"text": "hey"})
    )
    host_req = await peer.recv()
    assert host_req["type"] == "request"
    assert host_req["method"] == "branch_entries"
    result = b.BranchEntriesResult(entries=(CustomEntry(custom_type="a", data=1),))
    peer.send(b.Response(id=host_req["id"], result=b.raw(result)))
    resp = await peer.recv()
    assert resp["id"] == ident
    assert resp["result"]["text"].endswith("text=hey entries=1")
    assert resp["result"]["is_error"] is False


@pytest.mark.asyncio
async def test_command_sends_host_requests_in_order(peer: Peer) -> None:
    ident = peer.request("command", CommandCall(name="stub-note", args="remember me"))
    methods = []
    for _ in range(4):
        req = await peer.recv()
        methods.append((req["method"], req["params"]))
        peer.send(b.Response(id=req["id"]))
    assert methods[0] == (
        "append_entry",
        {"custom_type": "stub-note", "data": {"text": "remember me"}},
    )
    assert methods[1] == ("set_status", {"key": "stub", "text": "notes=1"})
    assert methods[2][0] == "display"
    assert methods[3] == ("notify", {"text": "noted: remember me", "level": "info"})
    resp = await peer.recv()
    assert resp["id"] == ident
    assert resp["result"] == {"text": "saved note 'remember me'", "level": "info", "reload": False}


@pytest.mark.asyncio
async def test_host_error_response_fails_the_tool_with_pis_message(peer: Peer) -> None:
    ident = peer.request("tool", ToolCall(call_id="c1", name="stub_echo", arguments={"text": "x"}))
    host_req = await peer.recv()
    peer.send(b.Response(id=host_req["id"], error=b.ErrorBody(code="failed", message="no session")))
    resp = await peer.recv()
    assert resp["id"] == ident
    assert resp["error"]["code"] == "failed"
    assert "Pi: no session" in resp["error"]["message"]


@pytest.mark.asyncio
async def test_host_that_never_answers_times_out_with_a_clear_error() -> None:
    p = Peer(host_timeout=0.05)
    await p.ready()
    ident = p.request("tool", ToolCall(call_id="c1", name="stub_echo", arguments={"text": "x"}))
    assert (await p.recv())["method"] == "branch_entries"  # never answered
    resp = await p.recv()
    assert resp["id"] == ident
    assert "did not answer 'branch_entries'" in resp["error"]["message"]
    await p.side.stop(0)


@pytest.mark.asyncio
async def test_failing_tool_is_an_error_response(peer: Peer) -> None:
    ident = peer.request("tool", ToolCall(call_id="c", name="stub_boom", arguments={"text": "x"}))
    resp = await peer.recv()
    assert resp["id"] == ident
    assert resp["error"]["code"] == "failed"
    assert "exploded on purpose" in resp["error"]["message"]


@pytest.mark.asyncio
async def test_cancel_notify_cancels_a_running_tool(peer: Peer) -> None:
    ident = peer.request("tool", ToolCall(call_id="c", name="stub_slow", arguments={"text": "x"}))
    await wait_all_tasks_blocked()  # the sidecar has taken the request(s) in hand
    peer.send(b.Notify(method="cancel", params=b.raw(b.CancelParams(id=ident))))
    resp = await peer.recv()
    assert resp["id"] == ident
    assert resp["error"]["code"] == "cancelled"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"{oops\n", "malformed"),
        (b"42\n", "malformed"),
        (b'{"type":"telepathy"}\n', "unknown_type"),
        (b'{"type":"ready","protocol":1,"pid":1}\n', "unknown_type"),
        (b'{"type":"notify","method":"dance"}\n', "unknown_method"),
        (b'{"type":"notify","method":"cancel","params":{"id":"x"}}\n', "bad_params"),
    ],
)
async def test_bad_frames_get_an_error_frame_and_the_sidecar_goes_on(
    peer: Peer, line: bytes, code: str
) -> None:
    peer.send(line)
    err = await peer.recv()
    assert err["type"] == "error"
    assert err["code"] == code
    ident = peer.request("ping", {"still": "alive"})
    assert await peer.recv() == {
        "type": "response",
        "id": ident,
        "result": {"still": "alive"},
        "error": None,
    }


@pytest.mark.asyncio
async def test_unknown_method_and_bad_params_are_error_responses(peer: Peer) -> None:
    ident = peer.request("teleport", {})
    resp = await peer.recv()
    assert (resp["id"], resp["error"]["code"]) == (ident, "unknown_method")
    ident = peer.request("tool", {"name": "stub_echo"})
    resp = await peer.recv()
    assert (resp["id"], resp["error"]["code"]) == (ident, "bad_params")


@pytest.mark.asyncio
@pytest.mark.parametrize(("extra", "ok"), [(-1, True), (0, True), (1, False)])
async def test_frame_size_cap_n_minus_one_n_n_plus_one(extra: int, ok: bool) -> None:
    cap = 200
    p = Peer(max_frame_bytes=cap)
    await p.ready()
    base = b.encode_frame(b.Request(id=1, method="ping", params=b.raw("")))[:-1]
    pad = cap + extra - len(base)
    line = b.encode_frame(b.Request(id=1, method="ping", params=b.raw("x" * pad)))
    assert len(line) - 1 == cap + extra
    p.send(line)
    got = await p.recv()
    if ok:
        assert got["type"] == "response"
        assert got["result"] == "x" * pad
    else:
        assert got == {"type": "error", "code": "oversized", "id": None, "message": got["message"]}
    await p.side.stop(0)


@pytest.mark.asyncio
async def test_shutdown_answers_then_stops_the_runtime(peer: Peer) -> None:
    ident = peer.request("shutdown", None)
    resp = await peer.recv()
    assert (resp["id"], resp["error"]) == (ident, None)
    assert await asyncio.wait_for(peer.side.done, 5) == 0
    assert peer.side.state == "stopped"


@pytest.mark.asyncio
async def test_eof_stops_cleanly_and_fails_pending_work(peer: Peer) -> None:
    ident = peer.request("tool", ToolCall(call_id="c", name="stub_slow", arguments={"text": "x"}))
    await wait_all_tasks_blocked()  # the sidecar has taken the request(s) in hand
    peer.side.eof()
    resp = await peer.recv()
    assert (resp["id"], resp["error"]["code"]) == (ident, "cancelled")
    assert await asyncio.wait_for(peer.side.done, 5) == 0


def test_params_types_match_the_documented_wire_names() -> None:
    wire = msgspec.json.decode(
        b.encode_frame(
            b.Request(
                id=1, method="tool", params=b.raw(ToolCall(call_id="c", name="n", arguments={}))
            )
        )
    )
    assert wire["params"] == {"type": "ToolCall", "call_id": "c", "name": "n", "arguments": {}}


@pytest.mark.asyncio
async def test_error_frame_naming_a_host_request_fails_it(peer: Peer) -> None:
    ident = peer.request("tool", ToolCall(call_id="c", name="stub_echo", arguments={"text": "x"}))
    host_req = await peer.recv()
    peer.send(b.ErrorFrame(code="malformed", message="could not read it", id=host_req["id"]))
    resp = await peer.recv()
    assert resp["id"] == ident
    assert "Pi: could not read it" in resp["error"]["message"]


@pytest.mark.asyncio
async def test_late_answers_are_ignored(peer: Peer) -> None:
    peer.send(b.Response(id=999, result=b.raw(1)))
    peer.send(b.Response(id=998, error=b.ErrorBody(code="failed", message="late")))
    ident = peer.request("ping", 1)
    assert (await peer.recv())["id"] == ident


@pytest.mark.asyncio
async def test_an_answer_over_the_cap_becomes_an_oversized_error() -> None:
    p = Peer(max_frame_bytes=300)
    await p.ready()
    ident = p.request(
        "tool", ToolCall(call_id="c", name="stub_echo", arguments={"text": "y", "times": 400})
    )
    host_req = await p.recv()
    p.send(b.Response(id=host_req["id"], result=b.raw(b.BranchEntriesResult())))
    resp = await p.recv()
    assert resp["id"] == ident
    assert resp["error"]["code"] == "oversized"
    await p.side.stop(0)


@pytest.mark.asyncio
async def test_a_host_request_over_the_cap_raises_instead_of_hanging() -> None:
    p = Peer(max_frame_bytes=300)
    await p.ready()
    with pytest.raises(HostError, match="over the frame cap"):
        await p.side.host.append_entry("stub-note", {"text": "z" * 400})
    await p.side.stop(0)


@pytest.mark.asyncio
async def test_shutdown_while_the_runtime_starts_leaves_it_once_started() -> None:
    gate = asyncio.Event()
    StubRuntime.start_gate = gate
    made: list[StubRuntime] = []

    def factory(host: Any, **kw: Any) -> StubRuntime:
        made.append(StubRuntime(host, **kw))
        return made[-1]

    try:
        out: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        side = Sidecar(lambda line: out.put_nowait(json.loads(line)), lambda: factory)
        side.feed(b.encode_frame(b.Hello(protocol=b.PROTOCOL_VERSION)))
        side.feed(b.encode_frame(b.Request(id=1, method="shutdown")))
        resp = await asyncio.wait_for(out.get(), 5)
        assert (resp["id"], resp["error"]) == (1, None)
        assert not side.done.done()  # waits for the starting runtime
        gate.set()
        assert await asyncio.wait_for(side.done, 5) == 0
        assert made[0].exited
        assert out.empty()  # no 'ready' after the shutdown
    finally:
        StubRuntime.start_gate = None


@pytest.mark.asyncio
async def test_cancel_stops_a_hung_event_and_the_next_events_still_run(peer: Peer) -> None:
    hung = peer.request("event", b.EventParams(event=BeforeAgentStart(prompt="HANG")))
    queued = peer.request("event", b.EventParams(event=BeforeAgentStart(prompt="queued")))
    later = peer.request("event", b.EventParams(event=BeforeAgentStart(prompt="later")))
    await wait_all_tasks_blocked()  # the sidecar has taken the request(s) in hand
    peer.send(b.Notify(method="cancel", params=b.raw(b.CancelParams(id=queued))))
    peer.send(b.Notify(method="cancel", params=b.raw(b.CancelParams(id=hung))))
    first, second, third = [await peer.recv() for _ in range(3)]
    assert (first["id"], first["error"]["code"]) == (hung, "cancelled")
    assert (second["id"], second["error"]["code"]) == (queued, "cancelled")
    assert "before it ran" in second["error"]["message"]
    assert third["id"] == later
    assert third["result"]["sections"] == ["STUB-MEMORY-1 notes=[]"]  # the queued one never ran


def _takes_children(
    host: Any,
    *,
    agent_dir: Path,
    trace_path: Path | None = None,
    clock: Any = None,
    child_backend: Any = None,
) -> Any:
    raise AssertionError("only its signature is read")


@pytest.mark.parametrize(
    ("factory", "pi_command", "children_env", "expected"),
    [
        (_takes_children, ("node", "cli.js"), None, {"child_backend", "clock"}),
        (_takes_children, ("node", "cli.js"), "0", set()),  # PERSONA_MIND_CHILDREN=0
        (_takes_children, None, None, set()),  # the host did not say how to start Pi
        (StubRuntime, ("node", "cli.js"), None, set()),  # a runtime without children
    ],
)
def test_children_backend_only_when_the_host_and_the_runtime_support_it(
    monkeypatch: pytest.MonkeyPatch,
    factory: Any,
    pi_command: tuple[str, ...] | None,
    children_env: str | None,
    expected: set[str],
) -> None:
    if children_env is None:
        monkeypatch.delenv("PERSONA_MIND_CHILDREN", raising=False)
    else:
        monkeypatch.setenv("PERSONA_MIND_CHILDREN", children_env)
    hello = b.Hello(protocol=b.PROTOCOL_VERSION, pi_command=pi_command)
    kwargs = sidecar._children_kwargs(factory, hello)
    assert set(kwargs) == expected
    if expected:  # the backend is built at the first child run, keeping start-up lean
        lazy = kwargs["child_backend"]
        assert isinstance(lazy, sidecar.LazyPiBackend)
        assert lazy.name == "pi"
        assert isinstance(lazy.backend, PiBackend)
        assert lazy.backend.name == lazy.name


def _event(prompt: str) -> b.EventParams:
    return b.EventParams(event=BeforeAgentStart(prompt=prompt))


@pytest.mark.asyncio
async def test_a_cancelled_event_leaves_the_worker_clean_for_the_next(peer: Peer) -> None:
    """Events run on the worker's own task (issue 10): Pi's cancel of one is taken back
    once it is answered, so the next event runs with no cancellation pending and its
    deadline scopes work."""
    for _ in range(2):  # twice: a second cancel is not confused by the first
        hung = peer.request("event", _event("HANG"))
        after = peer.request("event", _event("CANCELLING"))
        await wait_all_tasks_blocked()
        peer.send(b.Notify(method="cancel", params=b.raw(b.CancelParams(id=hung))))
        first, second = await peer.recv(), await peer.recv()
        assert (first["id"], first["error"]["code"]) == (hung, "cancelled")
        assert (second["id"], second["error"]) == (after, None)
        assert second["result"]["sections"] == ["cancelling=0"]


@pytest.mark.asyncio
async def test_an_event_that_ignores_the_cancel_is_answered_and_the_worker_goes_on(
    peer: Peer,
) -> None:
    swallow = peer.request("event", _event("SWALLOW"))
    after = peer.request("event", _event("CANCELLING"))
    await wait_all_tasks_blocked()
    peer.send(b.Notify(method="cancel", params=b.raw(b.CancelParams(id=swallow))))
    first, second = await peer.recv(), await peer.recv()
    assert second["id"] == after
    assert (first["id"], first["error"], first["result"]) == (
        swallow,
        None,
        {"sections": ["SWALLOWED"], "disclosures": []},
    )
    assert second["result"]["sections"] == ["cancelling=0"]


@pytest.mark.asyncio
async def test_stop_cancels_the_running_event_and_answers_it() -> None:
    """No hung ask: a stop while an event request runs answers it ``cancelled`` and the
    sidecar still stops (the worker is cancelled for that event only, then told to end)."""
    peer = Peer()
    assert (await peer.ready())["type"] == "ready"
    hung = peer.request("event", _event("HANG"))
    await wait_all_tasks_blocked()
    await asyncio.wait_for(peer.side.stop(0), 5)
    answer = await peer.recv()
    assert (answer["id"], answer["error"]["code"]) == (hung, "cancelled")
    assert peer.side.done.result() == 0
