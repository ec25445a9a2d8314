"""Issue 26 over MCP: a consult returns its usage; a decision record is memory like any fact.

Real ``persona-mind mcp`` server processes (the SDK's stdio client): ``persona_consult``
runs a real fake-pi child whose Pi-shaped usage comes back in the result's structured
content; a round-table run in a SimHost session on the same agent dir and project leaves
a decision record the MCP client recalls and reads (with its dissent) through ``memory``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from persona_mind.testing import ManualClock, SimHost, write_fake_pi
from persona_mind.testing._scripted import ScriptedModel
from tests.children.test_decision_records import QUERY, panel, roundtable
from tests.mcp.conftest import mcp_client
from tests.mcp.test_mcp_server import DEADLINE, text_of


@pytest.mark.asyncio
async def test_persona_consult_over_mcp_returns_its_usage(
    team_agent: Path, repo: Path, tmp_path: Path
) -> None:
    pi = write_fake_pi(tmp_path)
    usage = {"input": 40, "output": 8, "cacheRead": 4, "cacheWrite": 1, "cost": 0.5}
    script = {"default": {"reply": "Rotate the token now.", "usage": usage}}
    env = {"FAKE_PI_SCRIPT": json.dumps(script)}
    with anyio.fail_after(DEADLINE):
        async with mcp_client(
            team_agent,
            repo,
            "--persona",
            "architect",
            "--pi-command",
            pi,
            "--model",
            "fake/model-1",
            env=env,
        ) as client:
            result = await client.call_tool(
                "persona_consult",
                {"consultant": "security-reviewer", "question": "Is the token safe?"},
            )
    assert not result.is_error, text_of(result)
    assert result.structured_content["usage"] == {
        "input_tokens": 40,
        "output_tokens": 8,
        "cache_read_tokens": 4,
        "cache_write_tokens": 1,
        "cost": 0.5,
    }
    assert "53 tokens" in text_of(result)


@pytest.mark.asyncio
async def test_a_decision_record_is_read_through_the_memory_tool(
    team_agent: Path, repo: Path
) -> None:
    model = ScriptedModel(ManualClock())
    async with SimHost(agent_dir=team_agent, cwd=repo, child_backend=model) as sim:
        await sim.start()
        assert (await sim.command("/persona use architect")).level == "info"
        panel(model)
        result = await roundtable(sim)
        assert not result.is_error, result.text
    with anyio.fail_after(DEADLINE):
        async with mcp_client(team_agent, repo, "--persona", "architect") as client:
            found = await client.call_tool(
                "memory", {"action": "recall", "query": "nightly export queue"}
            )
            ids: list[Any] = found.structured_content["ids"]
            assert len(ids) == 1, text_of(found)
            read = await client.call_tool("memory", {"action": "read", "id": ids[0]})
    text = text_of(read)
    assert QUERY.rstrip("?") in text
    assert "Dissent: security-reviewer (keep cron" in text
    assert "tags: decision, round-table" in text
