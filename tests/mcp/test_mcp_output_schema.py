"""Every MCP tool declares an ``outputSchema`` and its results match it (issue 25 item 4).

A real ``persona-mind mcp`` process over stdio, driven by the official SDK client (which
itself refuses a result that breaks the schema it listed). Each listed tool has an object
output schema; each call's ``structuredContent`` — successes, refusals and malformed calls
alike — validates against it with ``jsonschema`` (Draft 2020-12), holds data only (no
``title``/``compact``/``full`` renderings) and the text is one content block.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest

from tests.mcp.conftest import mcp_client

DEADLINE = 90.0


def _check(schemas: dict[str, dict[str, Any]], name: str, result: Any) -> dict[str, Any]:
    data = result.structured_content
    assert isinstance(data, dict), (name, data)
    jsonschema.Draft202012Validator(schemas[name]).validate(data)
    assert not {"title", "compact", "full"} & set(data), (name, sorted(data))
    assert len(result.content) == 1
    assert result.content[0].type == "text"
    return data


@pytest.mark.asyncio
async def test_each_tool_declares_an_output_schema_and_results_validate(
    team_agent: Path, repo: Path
) -> None:
    with anyio.fail_after(DEADLINE):
        async with mcp_client(team_agent, repo, "--persona", "architect") as client:
            tools = (await client.list_tools()).tools
            declared = {t.name: t.output_schema for t in tools}
            assert {"memory", "backlog", "persona_list", "persona_resolve"} <= set(declared)
            schemas: dict[str, dict[str, Any]] = {}
            for name, schema in declared.items():
                assert isinstance(schema, dict), name
                assert schema["type"] == "object", name
                schemas[name] = schema
                jsonschema.Draft202012Validator.check_schema(schema)

            calls: list[tuple[str, dict[str, Any], bool]] = [
                ("memory", {"action": "remember", "text": "Deploys run on Fridays"}, False),
                ("memory", {"action": "recall", "query": "deploys"}, False),
                ("memory", {"action": "list"}, False),
                ("memory", {"action": "read", "id": "m_nosuch"}, True),
                ("memory", {"action": "explode"}, True),  # malformed: nothing runs
                ("backlog", {"action": "add", "text": "Write the runbook"}, False),
                ("backlog", {"action": "list"}, False),
                ("persona_list", {}, False),
                ("persona_resolve", {"persona": "architect"}, False),
                ("memory_optimize", {"action": "inspect"}, True),
                ("persona_pack", {"action": "list"}, False),
            ]
            seen: dict[str, dict[str, Any]] = {}
            for name, arguments, failing in calls:
                result = await client.call_tool(name, arguments)
                assert result.is_error is failing, (name, arguments, result.content)
                seen[f"{name} {arguments.get('action', '')}"] = _check(schemas, name, result)
            unknown = await client.call_tool("nosuch", {})
            assert unknown.is_error
            assert unknown.structured_content == {}

    saved = seen["memory remember"]
    assert saved["tier"] == "stm"
    assert saved["expires_in_seconds"] == 48 * 3600
    assert seen["memory recall"]["ids"] == [saved["id"]]
    assert seen["memory list"]["total"] == 1
    assert {m["name"] for m in seen["persona_list "]["members"]} >= {"architect"}
    assert seen["memory_optimize inspect"]["rule"] == "optimize.unavailable"
