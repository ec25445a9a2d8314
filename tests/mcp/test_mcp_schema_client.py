"""A client that knows only each tool's ``inputSchema`` can use the memory (issue 25 item 4).

The client fills exactly what the schema requires for the action it picks — top-level
``required`` plus the ``then.required`` of every ``allOf`` ``if`` the arguments match — and
nothing else. It remembers in one real ``persona-mind mcp`` process and recalls the same fact
in another over stdio (the official SDK client); an invalid call is a tool result with
``isError``, never a JSON-RPC protocol error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest

from tests.mcp.conftest import mcp_client

DEADLINE = 90.0


def fill_required(schema: dict[str, Any], action: str, values: dict[str, Any]) -> dict[str, Any]:
    """Arguments for ``action`` holding only the fields ``schema`` requires for it."""
    args: dict[str, Any] = {"action": action}
    needed = set(schema.get("required", []))
    for rule in schema.get("allOf", []):
        if jsonschema.Draft202012Validator(rule["if"]).is_valid(args):
            needed |= set(rule.get("then", {}).get("required", []))
    for field in sorted(needed - {"action"}):
        args[field] = values[field]
    return args


async def _schema_of(client: Any, name: str) -> dict[str, Any]:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    schema = tools[name].input_schema
    assert isinstance(schema, dict)
    return schema


def _text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@pytest.mark.asyncio
async def test_schema_driven_client_remembers_in_one_server_and_recalls_in_another(
    tmp_path: Path, repo: Path
) -> None:
    agent = tmp_path / "agent"
    fact = "The staging database is reset every Monday"
    with anyio.fail_after(DEADLINE):
        async with mcp_client(agent, repo) as first:
            schema = await _schema_of(first, "memory")
            args = fill_required(schema, "remember", {"text": fact})
            assert args == {"action": "remember", "text": fact}  # no kind: it defaults
            saved = await first.call_tool("memory", args)
            assert not saved.is_error, _text(saved)
            fact_id = saved.structured_content["id"]
            assert "short-term memory (STM) of this project; expires " in _text(saved)
            assert "unless promoted" in _text(saved)
            assert saved.structured_content["expires_in_seconds"] == 48 * 3600
            lasting = await first.call_tool(
                "memory", {**args, "text": "The API is versioned by date", "tier": "project"}
            )
            assert "long-term memory; kept until forgotten" in _text(lasting)
            assert lasting.structured_content["expires_in_seconds"] is None
        async with mcp_client(agent, repo) as second:
            schema = await _schema_of(second, "memory")
            args = fill_required(schema, "recall", {"query": "staging database"})
            found = await second.call_tool("memory", {**args, "query": "staging database"})
            assert not found.is_error, _text(found)
            assert fact in _text(found)
            assert fact_id in _text(found)
            read = await second.call_tool("memory", fill_required(schema, "read", {"id": fact_id}))
            assert fact in _text(read)


@pytest.mark.asyncio
async def test_invalid_calls_are_error_results(tmp_path: Path, repo: Path) -> None:
    with anyio.fail_after(DEADLINE):
        async with mcp_client(tmp_path / "agent", repo) as client:
            for name, arguments in [
                ("memory", {"action": "explode"}),
                ("memory", {"action": "read"}),
                ("nosuch", {}),
            ]:
                result = await client.call_tool(name, arguments)
                assert result.is_error, (name, arguments)
