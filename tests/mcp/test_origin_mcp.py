"""Issue 27 item 1: a memory write through the MCP face records origin ``mcp``, and the
tool's read result shows it (text and structured details)."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind._headless import HeadlessSession
from persona_mind.testing import ManualClock


@pytest.mark.asyncio
async def test_an_mcp_remember_records_and_shows_origin_mcp(team_agent: Path, repo: Path) -> None:
    async with HeadlessSession(
        agent_dir=team_agent, cwd=repo, persona="architect", clock=ManualClock()
    ) as session:
        saved = await session.call(
            "memory",
            {"action": "remember", "kind": "convention", "text": "we tag releases with v"},
        )
        assert not saved.is_error, saved.text
        assert saved.details["origin"] == "mcp"
        read = await session.call("memory", {"action": "read", "id": saved.details["id"]})
        assert not read.is_error, read.text
        assert "origin: an MCP client" in read.text
        assert (read.details["origin"], read.details["confirmed"]) == ("mcp", False)
