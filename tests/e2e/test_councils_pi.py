"""Councils that remember, and what every child costs — in the real Pi (issue 26 acceptance).

Real Pi 1.x in RPC mode with a session file, the real runtime in the sidecar, real Pi
children, and the fake model server, which reports usage (cached tokens included) on every
answer and plays every model: the main session's lead answers ``/persona-roundtable`` with
one ``persona_roundtable`` call naming three specialists; each specialist opens its rounds
with a ``Stance:`` line; the moderator's synthesis ends with the verdict block, in which
security-reviewer's final position is not adopted. Then:

* Pi's own session totals (``get_session_stats``) include every child's tokens and cost —
  the tool result's ``usage`` (Pi 1.x ``AgentToolResult.usage``) moved them;
* ``/persona decisions`` lists the record, naming the dissent;
* a new session that asks about the same subject carries the decision, with the
  dissenting persona named, in its request's memory block.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from persona_mind.persona.children._roundtable import REQUEST_MARKER, SECTIONS, SYNTHESIS_MARKER
from persona_mind.testing._fake_openai import FakeOpenAI, message_text, pi_agent_env

from .conftest import WAIT, PiEnv

pytestmark = pytest.mark.e2e

QUERY = "Should the nightly export move to a queue?"
PICKS = [
    {"name": "architect", "reason": "weigh a queue against cron"},
    {"name": "security-reviewer", "reason": "the broker's attack surface"},
    {"name": "test-engineer", "reason": "what proves the move safe"},
]
ROUND1 = {
    "architect": "a queue with retries beats cron",
    "security-reviewer": "keep cron until the broker is hardened",
    "test-engineer": "a queue, once replay tests exist",
}
FINAL = {
    "architect": "move to a queue behind a flag",
    "security-reviewer": "keep cron until the broker has TLS and auth",
    "test-engineer": "a queue after replay tests pass",
}
DECISION = "Move the nightly export to a queue behind a flag once replay tests pass."
BODIES = {
    "Perspectives": "architect and test-engineer favour a queue; security-reviewer does not.",
    "Disagreements": "security-reviewer wants the broker hardened first.",
    "Tradeoffs": "a broker to run against per-item retries.",
    "Decision": DECISION,
    "Uncertainty": "broker cost at peak load is unmeasured.",
}
VERDICT = (
    '{"decision": "' + DECISION + '", "adopted": '
    '{"architect": true, "security-reviewer": false, "test-engineer": true}}'
)
SYNTHESIS = (
    "\n\n".join(f"## {t}\n{BODIES[t]}" for t, _ in SECTIONS) + f"\n\n```json\n{VERDICT}\n```"
)
USAGE = {"prompt_tokens": 1000, "completion_tokens": 50, "cached_tokens": 200}
PRICE = {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75}  # $ per million
ASSIGNMENT = re.compile(r"Your assignment \(([a-z-]+)\)")


def _user_text(body: dict[str, Any]) -> str:
    return "\n".join(message_text(m) for m in body.get("messages", []) if m.get("role") == "user")


def _is_main(body: dict[str, Any]) -> bool:
    """The main session offers our tools; children only Pi's read-only built-ins."""
    names = {str(t.get("function", {}).get("name")) for t in body.get("tools") or []}
    return "memory" in names


class Council(FakeOpenAI):
    """Answers by what each request is (children reach it in any order)."""

    def __init__(self) -> None:
        super().__init__(usage=USAGE)

    def _record(self, body: dict[str, Any]) -> dict[str, Any]:
        super()._record(body)
        messages = body.get("messages", [])
        user = _user_text(body)
        if _is_main(body):
            if messages and messages[-1].get("role") == "tool":
                return {"text_from_last_tool": ""}  # the lead presents the result as is
            if REQUEST_MARKER in user and "persona_roundtable" in str(body.get("tools")):
                args = {"query": QUERY, "specialists": PICKS}
                return {"tool_calls": [{"name": "persona_roundtable", "arguments": args}]}
            return {"text": "noted"}
        if SYNTHESIS_MARKER in user:
            return {"text": SYNTHESIS}
        name = ASSIGNMENT.search(user)
        assert name is not None, user
        stance = (ROUND1 if user.startswith("Round 1") else FINAL)[name.group(1)]
        return {"text": f"Stance: {stance}.\nThe reasoning follows."}


@pytest.fixture
def council(pienv: PiEnv) -> Iterator[Council]:
    """This test's server in place of the plain one, with prices so Pi computes costs."""
    server = Council()
    with server:
        pienv.fake.stop()
        # the same agent dir, its models.json now pointing here and pricing the fake model
        pi_agent_env(
            pienv.root / "agent", server.base_url, extra_models=["fake-model-2"], cost=PRICE
        )
        del pienv.env["PERSONA_MIND_SIDECAR_RUNTIME"]  # the real runtime
        yield server


def _spent(reported: list[tuple[dict[str, Any], dict[str, Any]]]) -> tuple[int, int, int, float]:
    """(input, output, cache read, cost) as Pi counts the usage the server reported."""
    inp = out = read = 0
    for _, usage in reported:
        cached = int(usage.get("prompt_tokens_details", {}).get("cached_tokens", 0))
        inp += int(usage["prompt_tokens"]) - cached
        out += int(usage["completion_tokens"])
        read += cached
    cost = (inp * PRICE["input"] + out * PRICE["output"] + read * PRICE["cacheRead"]) / 1e6
    return inp, out, read, cost


def test_a_council_is_remembered_with_its_dissent_and_its_children_count_in_pi(
    pienv: PiEnv, council: Council
) -> None:
    with pienv.rpc(session=True) as rpc:
        for command in (
            "/persona pack install software-team",
            "/persona team select official/software-team",
            "/persona use architect",
        ):
            rpc.call({"type": "prompt", "message": command})
        rpc.prompt(f"/persona-roundtable {QUERY}", timeout=WAIT * 4)

        children = [(b, u) for b, u in council.reported if not _is_main(b)]
        main = [(b, u) for b, u in council.reported if _is_main(b)]
        assert len(children) == 7  # 3 Round 1, 3 Round 2, 1 synthesis; no selection child
        (result,) = [message_text(m) for m in main[-1][0]["messages"] if m.get("role") == "tool"]
        assert "Dissent: security-reviewer — keep cron until the broker has TLS and auth" in (
            result
        )
        assert "```json" not in result  # the verdict block is not shown
        assert re.search(r"Recorded as decision m_[0-9a-f]{16}", result), result

        # Pi's own totals include the children: the tool result's usage moved them
        stats = rpc.call({"type": "get_session_stats"})["data"]
        inp, out, read, cost = _spent(council.reported)
        only_main = _spent(main)
        assert stats["tokens"]["input"] == inp > only_main[0]
        assert stats["tokens"]["output"] == out
        assert stats["tokens"]["cacheRead"] == read
        assert stats["cost"] == pytest.approx(cost)

        rpc.call({"type": "prompt", "message": "/persona decisions"})
        listed = rpc.wait_notify("Round-table decisions (1):")["message"]
        assert "Should the nightly export move to a queue?" in listed
        assert "Dissent: security-reviewer" in listed

        # a new session about the same subject carries the decision and its dissent
        rpc.call({"type": "new_session"})
        before = len(council.requests)
        rpc.prompt("What did we decide about the nightly export queue?")
        assert len(council.requests) == before + 1
        system = council.system_prompt(-1)
    block = system[system.index("<persona-mind-memory>") :]
    assert "Round-table decision" in block
    assert f"Decided: {DECISION.rstrip('.')}" in block
    assert "Dissent: security-reviewer (keep cron until the broker has TLS and auth)" in block
