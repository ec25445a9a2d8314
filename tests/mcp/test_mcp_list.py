"""The ``memory`` tool's ``list`` action over MCP (issue 25 item 4): live facts, bounded.

A real ``persona-mind mcp`` process over stdio (the official SDK client): facts remembered
in two tiers come back from ``list``; ``tier`` filters and ``limit`` bounds the lines while
the total is still reported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp.conftest import mcp_client


def _text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@pytest.mark.asyncio
async def test_list_shows_live_facts_with_tier_filter_and_limit(tmp_path: Path, repo: Path) -> None:
    with anyio.fail_after(90):
        async with mcp_client(tmp_path / "agent", repo) as client:
            for i in range(3):
                saved = await client.call_tool(
                    "memory", {"action": "remember", "text": f"Short fact number {i}"}
                )
                assert not saved.is_error, _text(saved)
            await client.call_tool(
                "memory", {"action": "remember", "text": "Lasting fact", "tier": "project"}
            )
            every = await client.call_tool("memory", {"action": "list"})
            assert not every.is_error, _text(every)
            assert every.structured_content["total"] == 4
            assert "Lasting fact" in _text(every)
            assert "Short fact number 2" in _text(every)
            stm = await client.call_tool("memory", {"action": "list", "tier": "stm", "limit": 2})
            assert not stm.is_error, _text(stm)
            assert stm.structured_content["total"] == 3
            assert len(stm.structured_content["ids"]) == 2
            assert set(stm.structured_content["tiers"]) == {"stm"}
            assert "Lasting fact" not in _text(stm)
            bad = await client.call_tool("memory", {"action": "list", "limit": 500})
            assert bad.is_error


@pytest.mark.asyncio
async def test_result_text_is_rendered_once(tmp_path: Path, repo: Path) -> None:
    """One text block; structured content holds data, not the card's text again."""
    with anyio.fail_after(90):
        async with mcp_client(tmp_path / "agent", repo) as client:
            saved = await client.call_tool(
                "memory", {"action": "remember", "text": "Rendered once please"}
            )
            assert len(saved.content) == 1
            assert "Rendered once please" not in str(saved.structured_content)
