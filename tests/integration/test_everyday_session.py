"""Pi's everyday text in a simulated session (issue 25, item 9; P-PACK, M-STATUS).

Re-installing a pack is a notice, not an error; `/mind status` on a fresh session promises
no import and counts in English; optimizing STM without a persona names short-term memory.
"""

from __future__ import annotations

import pytest

from persona_mind.testing._simhost import SimHost


@pytest.mark.asyncio
async def test_reinstalling_an_installed_pack_is_an_info_notice(host: SimHost) -> None:
    first = await host.command("/persona pack install software-team")
    assert first.level == "info", first.text
    again = await host.command("/persona pack install software-team")
    assert again.level == "info", again.text
    assert "already installed; nothing changed" in again.text
    assert "`/persona pack update software-team`" in again.text


@pytest.mark.asyncio
async def test_fresh_status_promises_no_import_and_pluralises(host: SimHost) -> None:
    saved = await host.call_tool(
        "memory",
        {"action": "remember", "kind": "note", "text": "The build needs Docker.", "tier": "stm"},
    )
    assert not saved.is_error, saved.text
    status = await host.command("/mind status")
    assert "import: pending" not in status.text
    lines = status.text.splitlines()
    assert "stm: 1 live fact" in lines, status.text
    assert "0 live facts" in status.text  # the other tiers still read as plurals
    assert "1 live facts" not in status.text


@pytest.mark.asyncio
async def test_optimize_stm_without_a_persona_names_short_term_memory(host: SimHost) -> None:
    result = await host.command("/mind optimize inspect stm")
    assert result.level == "error"
    assert "short-term memory is consolidated only by its owning persona" in result.text


@pytest.mark.asyncio
async def test_the_memory_tool_reply_says_tier_and_expiry(host: SimHost) -> None:
    """Item 2: the Pi tool's save reply says where the fact went and until when."""
    saved = await host.call_tool(
        "memory", {"action": "remember", "kind": "gotcha", "text": "The build needs Docker."}
    )
    assert not saved.is_error, saved.text
    first = saved.text.splitlines()[0]
    assert "in short-term memory (STM) of this project; expires 20" in first
    assert 'unless promoted (memory {"action": "promote", "id": "m_' in first
    lasting = await host.call_tool(
        "memory",
        {"action": "remember", "kind": "gotcha", "text": "Tabs in Makefiles.", "tier": "project"},
    )
    assert "in this project's long-term memory; kept until forgotten" in lasting.text


@pytest.mark.asyncio
async def test_the_memory_tool_refuses_an_empty_recall(host: SimHost) -> None:
    """Item 5: `recall` without words is an error result that says what to do."""
    result = await host.call_tool("memory", {"action": "recall", "query": ""})
    assert result.is_error
    assert "recall needs a query" in result.text


@pytest.mark.asyncio
async def test_one_remember_turn_stores_the_fact_once(host: SimHost) -> None:
    """Item 3: capture saved the user's words; the model's remember of them in that turn
    updates the captured row instead of writing a second copy to STM."""
    await host.turn("remember that we deploy on Fridays")
    reply = await host.call_tool(
        "memory", {"action": "remember", "kind": "convention", "text": "We deploy on Fridays."}
    )
    assert not reply.is_error, reply.text
    assert "Already saved from the user's message" in reply.text
    assert "stm" not in (reply.details or {}).get("tier", "")
    listed = await host.call_tool("memory", {"action": "recall", "query": "deploy Fridays"})
    assert (listed.details or {}).get("ids", []) == [(reply.details or {})["id"]]
    # a new turn (about deploys, so the fact is above the relevance floor): a fresh
    # remember is its own fact
    later = await host.turn("and what else about deploys?")
    assert "deploy on Fridays" in later.system_prompt
    other = await host.call_tool(
        "memory", {"action": "remember", "kind": "note", "text": "We deploy on Fridays."}
    )
    assert "Already saved" not in other.text


@pytest.mark.asyncio
async def test_a_captured_update_is_named_to_the_model(host: SimHost) -> None:
    """Issue 23 item 2: the user's captured fact changes a stored one; the next injection
    names the stored fact and the supersede call, and nothing is superseded by itself."""
    await host.turn("remember that the staging API listens on port 8080")
    listed = await host.call_tool("memory", {"action": "recall", "query": "staging port"})
    (old_id,) = (listed.details or {})["ids"]
    turn = await host.turn("remember that the staging API listens on port 9090")
    assert f"This may update {old_id}" in turn.system_prompt
    assert f'"action": "supersede", "id": "{old_id}"' in turn.system_prompt
    again = await host.call_tool("memory", {"action": "recall", "query": "staging port"})
    assert len((again.details or {})["ids"]) == 2  # both stay until someone supersedes
