"""Issue 13 item 2 under a simulated session on the real runtime.

The host port carries another extension's custom messages (``Input.custom_type``) and every
finished tool call with its ``parentToolCallId`` (``ToolExecutionEnd``); the Mind feature
feeds them to capture and to the relay tracker (M-TRUST-2, M-CAPTURE-7..10).
"""

from __future__ import annotations

import pytest

from persona_mind.messages.host import DEFERRED_INPUT_TYPE
from persona_mind.testing._simhost import SimHost
from tests.integration.conftest import bind_team

FACT = "release tags are signed with the team key"
BLOCKED = "status: blocked waiting for the staging DB password"
HINT = "A worker report relayed to the user says it is blocked"


async def recall(host: SimHost, query: str) -> str:
    result = await host.call_tool("memory", {"action": "recall", "query": query})
    assert not result.is_error, result.text
    return result.text


def remembered(host: SimHost) -> list[str]:
    return [t for _, t in host.notifications if "persona-mind remembered" in t]


@pytest.mark.asyncio
async def test_deferred_input_replay_is_captured_like_direct_input_M_TRUST_2(
    host: SimHost,
) -> None:
    await bind_team(host)
    await host.custom_message(DEFERRED_INPUT_TYPE, f"Remember that {FACT}")
    assert len(remembered(host)) == 1
    assert FACT in await recall(host, "release tags signed")


@pytest.mark.asyncio
@pytest.mark.parametrize("custom_type", ["intercom-message", "pi-persona-deferred", "worker"])
async def test_other_custom_types_are_never_user_input_M_TRUST_1_2(
    host: SimHost, custom_type: str
) -> None:
    await bind_team(host)
    await host.custom_message(custom_type, f"Remember that {FACT}")
    assert remembered(host) == []
    assert FACT not in await recall(host, "release tags signed")
    # not even a nudge: foreign material never asks the model to save anything
    turn = await host.turn("what is next?")
    assert "persona-mind hint" not in turn.system_prompt


@pytest.mark.asyncio
async def test_visible_relayed_blocked_report_nudges_the_next_turn_once_M_CAPTURE_8(
    host: SimHost,
) -> None:
    await bind_team(host)
    await host.tool_end("w-1", "worker", BLOCKED, parent="call-7")
    await host.tool_end("call-7", "delegate", f"Worker finished.\n{BLOCKED}")
    turn = await host.turn("what now?")
    assert HINT in turn.system_prompt
    assert "[worker via delegate] waiting for the staging DB password" in turn.system_prompt
    assert "backlog" in turn.system_prompt
    again = await host.turn("and then?")
    assert HINT not in again.system_prompt
    backlog = await host.call_tool("backlog", {"action": "list"})
    assert "staging DB password" not in backlog.text  # a suggestion never writes


@pytest.mark.asyncio
async def test_discarded_nested_report_and_tool_output_never_nudge_M_CAPTURE_9(
    host: SimHost,
) -> None:
    await bind_team(host)
    await host.tool_end("n-1", "delegate", BLOCKED, parent="call-8")
    await host.tool_end("call-8", "flow", "All steps finished.")  # dropped the report
    await host.tool_end("call-9", "bash", BLOCKED)  # tool output, not a relay
    await host.tool_end("call-10", "delegate", BLOCKED, is_error=True)
    turn = await host.turn("what now?")
    assert HINT not in turn.system_prompt
    assert remembered(host) == []


@pytest.mark.asyncio
async def test_relay_state_is_cleared_at_settlement_M_CAPTURE_10(host: SimHost) -> None:
    """A nested report held when the agent settles is gone: its parent relays nothing."""
    await bind_team(host)
    await host.tool_end("n-1", "delegate", BLOCKED, parent="script-1")
    await host.turn("a turn settles")  # AgentSettled clears the held report
    await host.tool_end("script-1", "script", f"delegate said: {BLOCKED}")
    turn = await host.turn("what now?")
    assert HINT not in turn.system_prompt
    # control: the same relay within one turn does suggest
    await host.tool_end("n-2", "delegate", BLOCKED, parent="script-2")
    await host.tool_end("script-2", "script", f"delegate said: {BLOCKED}")
    turn = await host.turn("what now?")
    assert "[delegate via script]" in turn.system_prompt


@pytest.mark.asyncio
async def test_owner_change_discards_relay_state(host: SimHost) -> None:
    await bind_team(host)
    await host.tool_end("n-1", "delegate", BLOCKED, parent="script-1")
    await host.command("/persona use architect")  # new owner generation
    await host.tool_end("script-1", "script", f"delegate said: {BLOCKED}")
    turn = await host.turn("what now?")
    assert HINT not in turn.system_prompt


@pytest.mark.asyncio
async def test_owner_change_drops_a_pending_relay_nudge(host: SimHost) -> None:
    await bind_team(host)
    await host.tool_end("call-1", "delegate", BLOCKED)
    await host.command("/persona use architect")
    turn = await host.turn("what now?")
    assert HINT not in turn.system_prompt
