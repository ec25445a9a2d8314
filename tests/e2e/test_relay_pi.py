"""Issue 13 item 2 in a real Pi with the real runtime (fake model server on 127.0.0.1).

* M-TRUST-2: a ``pi-persona-deferred-input`` custom message with a remember cue (sent by a
  test extension with ``pi.sendMessage``) is captured like typed input; the same text under
  another custom type is not.
* M-CAPTURE-7/8/9: a ``delegate`` tool runs a nested ``worker_report`` call through
  ``ctx.executeTool``; Pi reports it with ``parentToolCallId``. When the delegate's visible
  result relays the worker's blocked report, the next request's system prompt carries the
  backlog suggestion naming the nested worker (provenance followed the parent id); when the
  delegate drops it, nothing is suggested.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from persona_mind.testing._pi import PiInstall

from .conftest import PiEnv

pytestmark = pytest.mark.e2e

RELAY_EXTENSION = Path(__file__).with_name("relay_ext.ts")
EXTENSION_DIR = Path(__file__).resolve().parents[2] / "pi-extension" / "persona-mind"
HINT = "A worker report relayed to the user says it is blocked"
FACT = "release tags are signed with the team key"


@pytest.fixture
def real(real: PiEnv) -> PiEnv:
    """The conftest's real-Runtime environment plus the test-only relay extension."""
    real.extensions.append(RELAY_EXTENSION)
    return real


def _memory_files(env: PiEnv) -> str:
    root = env.root / "agent" / "persona-mind"
    if not root.exists():
        return ""
    return "".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


def test_only_the_deferred_input_custom_type_is_captured_M_TRUST_2(real: PiEnv) -> None:
    with real.rpc(session=True) as rpc:
        rpc.prompt(f"/e2e-custom intercom-message Remember that {FACT}")
        assert real.fake.wait_for_requests(1)
        assert FACT not in _memory_files(real)
        rpc.prompt(f"/e2e-custom pi-persona-deferred-input Remember that {FACT}")
        rpc.wait_notify("persona-mind remembered")
        assert real.fake.wait_for_requests(2)
        remembered = [n for n in rpc.notifications() if "persona-mind remembered" in n]
        refused = [n for n in rpc.notifications() if "did not remember" in n]
    assert len(remembered) == 1  # the intercom message was never treated as user input
    assert refused == []
    # the triggerTurn run announced it first at before_agent_start, and it was sent once
    forwarded = [ln for ln in real.bridge_log.read_text().splitlines() if "deferred input" in ln]
    assert len(forwarded) == 1
    assert forwarded[0].endswith("deferred input forwarded at before_agent_start")
    assert FACT in _memory_files(real)


def test_deferred_input_queued_for_the_next_turn_is_captured_M_TRUST_2(real: PiEnv) -> None:
    """``deliverAs: "nextTurn"``: Pi announces the message only by ``message_end``."""
    with real.rpc(session=True) as rpc:
        command = f"/e2e-custom-next pi-persona-deferred-input Remember that {FACT}"
        rpc.call({"type": "prompt", "message": command})  # handled: no turn runs
        assert FACT not in _memory_files(real)  # queued, not delivered yet
        rpc.prompt("hello")
        rpc.wait_notify("persona-mind remembered")
        assert any(FACT in t for t in real.fake.user_texts(-1))  # delivered with the turn
    assert FACT in _memory_files(real)
    forwarded = [ln for ln in real.bridge_log.read_text().splitlines() if "deferred input" in ln]
    assert [ln.rsplit(" ", 1)[-1] for ln in forwarded] == ["message_end"]


def _delegate_step(*, relay: bool) -> list[dict[str, object]]:
    call = {
        "name": "delegate",
        "arguments": {"task": "waiting for the DB password", "relay": relay},
    }
    return [{"tool_calls": [call]}, {"text": "Delegated."}]


def test_relayed_nested_blocked_report_suggests_backlog_M_CAPTURE_7_8(real: PiEnv) -> None:
    real.fake.push(*_delegate_step(relay=True))
    with real.rpc(session=True) as rpc:
        rpc.prompt("delegate the migration")
        assert "status: blocked waiting for the DB password" in real.fake.tool_results(-1)[-1]
        rpc.prompt("what should we do next?")
        system = real.fake.system_prompt(-1)
        assert HINT in system
        assert "[worker_report via delegate] waiting for the DB password" in system
        rpc.prompt("and after that?")
        assert HINT not in real.fake.system_prompt(-1)  # suggested once
    assert "DB password" not in _memory_files(real)  # a suggestion, never a write


def test_discarded_nested_report_suggests_nothing_M_CAPTURE_9(real: PiEnv) -> None:
    with real.rpc(session=True) as rpc:
        real.fake.push(*_delegate_step(relay=False))
        rpc.prompt("delegate the migration")
        assert "nothing to add" in real.fake.tool_results(-1)[-1]
        rpc.prompt("what should we do next?")
        assert HINT not in real.fake.system_prompt(-1)
        # control, same session: the relayed report does reach the next request
        real.fake.push(*_delegate_step(relay=True))
        rpc.prompt("delegate it again")
        rpc.prompt("what should we do next?")
        assert HINT in real.fake.system_prompt(-1)


def test_extension_relay_parts_under_node(pi: PiInstall) -> None:
    """relay.ts's pure parts: only the reserved type, bounded text, parent id passed through."""
    script = f"""
import assert from "node:assert/strict";
const m = await import({json.dumps(str(EXTENSION_DIR / "relay.ts"))});
const msg = (customType, content) => ({{ role: "custom", customType, content, timestamp: 1 }});
assert.equal(m.deferredInputEvent(msg("pi-persona-deferred-input", "hi")).custom_type,
  "pi-persona-deferred-input");
assert.equal(m.deferredInputEvent(msg("other", "hi")), undefined);
assert.equal(m.deferredInputEvent({{ role: "user", content: "hi" }}), undefined);
const once = new m.DeferredInputs();
const parts = (t) => msg("pi-persona-deferred-input", [{{ type: "text", text: t }}]);
assert.ok(once.take(parts("x")));
assert.equal(once.take(parts("x")), undefined);
const big = "a".repeat(m.MAX_TOOL_TEXT - 1) + "\\u{{1F642}}";
const end = m.toolEndEvent({{ toolCallId: "c/1", toolName: "w", parentToolCallId: "c",
  isError: false, result: {{ content: [{{ type: "text", text: big }}] }} }});
assert.equal(end.parent_tool_call_id, "c");
assert.equal(end.text.length, m.MAX_TOOL_TEXT - 1);
assert.equal(end.truncated, true);
const top = m.toolEndEvent({{ toolCallId: "c", toolName: "delegate", isError: true,
  result: {{ content: [{{ type: "text", text: "t" }}] }} }});
assert.deepEqual([top.parent_tool_call_id, top.is_error, top.text, top.truncated],
  [null, true, "t", false]);
console.log("OK");
"""
    proc = subprocess.run(
        [str(pi.node), "--no-warnings", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK"
