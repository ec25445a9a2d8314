"""Hostile frames and settings at the sidecar (issue 15, items 7 and 10).

Each test names the reproduction from the issue it guards: deep nesting that raised
RecursionError and dropped the rest of the read, duplicate request ids, invalid UTF-8
echoed, ``"id": true`` echoed, a host timeout that crashed at import or was accepted
negative/NaN, and CLI flags that named nothing real.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from persona_mind.bridge.sidecar import HOST_TIMEOUT, BridgeConfigError, host_timeout_from_env
from persona_mind.cli import _memory
from persona_mind.messages import bridge as b
from persona_mind.messages.host import ToolCall
from tests.bridge.test_sidecar import Peer


def _deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def _ping(ident: int, params: bytes = b'"p"') -> bytes:
    return b'{"type":"request","id":%d,"method":"ping","params":%s}\n' % (ident, params)


# -- item 7: nesting -----------------------------------------------------------------------


def test_nesting_is_measured_outside_strings_and_up_to_the_limit() -> None:
    limit = b.MAX_NESTING
    assert not b.nesting_exceeds(_deep(limit), limit)
    assert b.nesting_exceeds(_deep(limit + 1), limit)
    inside_string = b'{"a":"' + b"[" * 5000 + b'"}'
    assert not b.nesting_exceeds(inside_string, limit)  # brackets in a string are data
    escaped = b'{"a":"\\"' + b"[" * 5000 + b'"}'  # an escaped quote does not end the string
    assert not b.nesting_exceeds(escaped, limit)
    wide = b"[" + b",".join([b"{}"] * 10_000) + b"]"  # many brackets, depth 2
    assert not b.nesting_exceeds(wide, limit)


def _depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


_json = st.recursive(
    st.none() | st.integers() | st.text(alphabet='[]{}"\\ab', max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(_json, st.integers(0, 6))
def test_nesting_matches_the_true_depth_of_any_json(value: object, limit: int) -> None:
    """Strings full of brackets, quotes and backslashes never change the measured depth."""
    line = json.dumps(value).encode()
    assert b.nesting_exceeds(line, limit) == (_depth(value) > limit)


@pytest.mark.parametrize(
    "shape",
    [
        b"[[]," * 200 + b"1" + b"]" * 200,  # a chain with leaves on the side: no run of openers
        b"[[[]]," * 200 + b"1" + b"]" * 200,  # side subtrees of depth 2
        (b"[" + b"[" * 10 + b"]" * 10 + b",") * 200 + b"1" + b"]" * 200,  # side depth 10
        b'[{"a":' * 130 + b"1" + b"}]" * 130,  # objects and arrays mixed
    ],
)
def test_nesting_finds_deep_shapes_that_are_not_plain_runs(shape: bytes) -> None:
    assert b.nesting_exceeds(shape, b.MAX_NESTING)
    assert json.loads(shape) is not None  # they are valid JSON (deep for Python's parser too)


def test_a_frame_nested_998_levels_is_refused_with_its_request_id() -> None:
    """M-item 7: 998 levels raised RecursionError inside ``data_received``."""
    line = b'{"type":"request","id":41,"method":"event","params":%s}' % _deep(998)
    bad = b.decode_frame(line)
    assert isinstance(bad, b.BadFrame)
    assert bad.reply.code == "too_deep"
    assert bad.reply.id == 41
    assert str(b.MAX_NESTING) in bad.reply.message


@pytest.mark.asyncio
async def test_deep_frame_is_answered_and_the_other_frames_in_the_same_read_are_kept() -> None:
    p = Peer()
    deep_request = b'{"type":"request","id":7,"method":"ping","params":%s}\n' % _deep(998)
    deep_notify = b'{"type":"notify","method":"event","params":{"e":%s}}\n' % _deep(5000)
    p.send(_ping(1) + deep_request + _ping(2) + deep_notify + _ping(3))  # one read
    got = [await p.recv() for _ in range(5)]
    assert got[0] == {"type": "response", "id": 1, "result": "p", "error": None}
    assert got[1]["type"] == "error"
    assert (got[1]["code"], got[1]["id"]) == ("too_deep", 7)
    assert got[2]["id"] == 2
    assert (got[3]["code"], got[3]["id"]) == ("too_deep", None)
    assert got[4]["id"] == 3
    await p.side.stop(0)


@pytest.mark.asyncio
async def test_an_unreadable_answer_from_pi_fails_our_host_request_at_once() -> None:
    """A deep (or otherwise bad) response to our request does not leave it waiting 30 s."""
    p = Peer(host_timeout=60)
    await p.ready()
    ident = p.request("tool", ToolCall(call_id="c", name="stub_echo", arguments={"text": "x"}))
    host_req = await p.recv()
    assert host_req["method"] == "branch_entries"
    p.send(b'{"type":"response","id":%d,"result":%s}\n' % (host_req["id"], _deep(2000)))
    error_frame = await p.recv()
    assert (error_frame["code"], error_frame["id"]) == ("too_deep", None)  # not our request id
    failed = await p.recv()
    assert failed["id"] == ident
    assert failed["error"]["code"] == "failed"  # the stub's tool raised what the host raised
    assert "Pi's answer could not be read" in failed["error"]["message"]
    await p.side.stop(0)


# -- item 10: ids, UTF-8 ---------------------------------------------------------------------


@pytest.mark.asyncio
async def test_invalid_utf8_in_params_is_refused_not_echoed() -> None:
    p = Peer()
    p.send(_ping(9, b'"ok \xff\xfe bad"'))
    err = await p.recv()
    assert err["type"] == "error"
    assert (err["code"], err["id"]) == ("malformed", 9)
    assert "UTF-8" in err["message"]
    p.send(_ping(10, '"caf\u00e9 \u2603"'.encode()))  # valid UTF-8 is echoed as sent
    assert (await p.recv())["result"] == "caf\u00e9 \u2603"
    await p.side.stop(0)


def test_a_boolean_id_is_never_echoed() -> None:
    bad = b.decode_frame(b'{"type":"request","id":true,"method":"ping"}')
    assert isinstance(bad, b.BadFrame)
    assert bad.reply.id is None
    assert b'"id":null' in b.encode_frame(bad.reply)


@pytest.mark.asyncio
async def test_a_duplicate_request_id_is_refused_and_cancel_still_reaches_the_first() -> None:
    p = Peer()
    assert (await p.ready())["type"] == "ready"
    slow = ToolCall(call_id="c", name="stub_slow", arguments={"text": "x"})
    p.send(b.Request(id=7, method="tool", params=b.raw(slow)))
    p.send(b.Request(id=7, method="tool", params=b.raw(slow)))
    dup = await p.recv()
    assert dup["id"] == 7
    assert dup["error"]["code"] == "duplicate_id"
    p.send(b.Notify(method="cancel", params=b.raw(b.CancelParams(id=7))))
    cancelled = await p.recv()
    assert (cancelled["id"], cancelled["error"]["code"]) == (7, "cancelled")
    await p.side.stop(0)


@pytest.mark.asyncio
async def test_an_id_is_free_again_once_its_request_finished() -> None:
    p = Peer()
    await p.ready()
    slow = ToolCall(call_id="c", name="stub_slow", arguments={"text": "x"})
    for _ in range(2):  # same id, one after the other: each is cancellable and answered once
        p.send(b.Request(id=5, method="tool", params=b.raw(slow)))
        p.send(b.Notify(method="cancel", params=b.raw(b.CancelParams(id=5))))
        assert (await p.recv())["error"]["code"] == "cancelled"
    await p.side.stop(0)


# -- item 10: the host timeout setting --------------------------------------------------------


@pytest.mark.parametrize("text", ["abc", "-1", "0", "nan", "inf", "1e9"])
def test_bad_host_timeouts_are_refused_with_the_fix(text: str) -> None:
    with pytest.raises(BridgeConfigError, match="PERSONA_MIND_BRIDGE_HOST_TIMEOUT"):
        host_timeout_from_env({"PERSONA_MIND_BRIDGE_HOST_TIMEOUT": text})


def test_good_host_timeouts_are_read() -> None:
    assert host_timeout_from_env({"PERSONA_MIND_BRIDGE_HOST_TIMEOUT": "2.5"}) == 2.5
    assert host_timeout_from_env({}) == HOST_TIMEOUT


@pytest.mark.asyncio
async def test_a_bad_host_timeout_fails_the_start_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERSONA_MIND_BRIDGE_HOST_TIMEOUT", "nan")
    p = Peer()
    err = await p.ready()
    assert err["type"] == "error"
    assert err["code"] == "failed"
    assert "PERSONA_MIND_BRIDGE_HOST_TIMEOUT='nan'" in err["message"]
    assert await asyncio.wait_for(p.side.done, 5) == 1


def test_importing_the_sidecar_with_a_bad_timeout_does_not_crash() -> None:
    env = {**os.environ, "PERSONA_MIND_BRIDGE_HOST_TIMEOUT": "abc"}
    proc = subprocess.run(
        [sys.executable, "-c", "import persona_mind.bridge.sidecar"],
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


# -- item 10: CLI flags that name nothing real --------------------------------------------------


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="persona-mind")
    _memory.add_parser(parser.add_subparsers())
    return parser.parse_args(argv)


@pytest.mark.parametrize("persona", ["", "  ", "pack//name", " pack/name", "a\nb"])
def test_memory_refuses_an_empty_or_broken_persona(
    persona: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        _parse(["memory", "--cwd", str(tmp_path), "--persona", persona, "list"])
    assert exit_.value.code == 2
    assert "--persona" in capsys.readouterr().err


def test_memory_refuses_a_cwd_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = tmp_path / "agent"
    missing = tmp_path / "nonexistent"
    with pytest.raises(SystemExit) as exit_:
        _parse(["memory", "--agent-dir", str(agent), "--cwd", str(missing), "list"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--cwd" in err
    assert "does not exist" in err
    assert not agent.exists()  # nothing was created for a project that is not there
    args = _parse(["memory", "--cwd", str(tmp_path), "--persona", "official/p/n", "list"])
    assert (args.cwd, args.persona) == (tmp_path, "official/p/n")


def test_every_frame_type_still_decodes_after_the_guards() -> None:
    line = json.dumps({"type": "notify", "method": "event", "params": {"x": [[[1]]]}}).encode()
    assert isinstance(b.decode_frame(line), b.Notify)
