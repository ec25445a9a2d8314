"""The MCP server's stdin line cap (issue 25 item 4): a huge line is refused, not buffered.

The splitter is checked on its own with an in-memory source, then end to end: a real
``persona-mind mcp`` process gets a 50 MB line and then a valid request; it answers the line
with a JSON-RPC ``-32600`` error (id null), answers the request, and its peak resident size
(``VmHWM``) stays far below what buffering the line would take.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import anyio
import pytest

from persona_mind.mcp._lines import MAX_LINE, BoundedLines, request_id
from tests.mcp.conftest import mcp_client

HUGE = 50_000_000
PEAK_LIMIT_KB = 150 * 1024


async def _split(data: bytes, cap: int, chunk: int) -> tuple[list[str], list[int], list[bytes]]:
    view = memoryview(data)
    offset = 0
    refused: list[tuple[int, bytes]] = []

    async def read(n: int) -> bytes:
        nonlocal offset
        piece = bytes(view[offset : offset + min(n, chunk)])
        offset += len(piece)
        return piece

    async def oversize(size: int, head: bytes) -> None:
        refused.append((size, head))

    lines = [line async for line in BoundedLines(read, cap, oversize)]
    return lines, [size for size, _ in refused], [head for _, head in refused]


@pytest.mark.parametrize("chunk", [1, 3, 7, 1 << 20])
def test_lines_over_the_cap_are_dropped_and_counted(chunk: int) -> None:
    data = b'{"a":1}\n' + b"x" * 25 + b"\n\n" + b"y" * 10 + b"\r\n" + b"z" * 12 + b"\n" + b"w" * 30
    lines, refused, heads = anyio.run(_split, data, 11, chunk)
    assert lines == ['{"a":1}', "y" * 10 + "\r"]  # 11 bytes: exactly the cap is kept
    assert refused == [25, 12, 30]  # the unterminated tail too
    for head, line in zip(heads, [b"x" * 25, b"z" * 12, b"w" * 30], strict=True):
        assert line.startswith(head)  # the line's first bytes, at least those past the cap
        assert len(head) > 11


def test_the_error_names_the_request_id_only_when_the_line_begins_with_it() -> None:
    assert request_id(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":') == 7
    assert request_id(b' { "jsonrpc" : "2.0" , "id" : "r-1" , "method"') == "r-1"
    assert request_id(b'{"jsonrpc":"2.0","method":"x","params":{"id":3,') is None
    assert request_id(b'{"jsonrpc":"2.0","id":"a\\"b",') == 'a"b'  # an escaped quote
    assert request_id(b'{"jsonrpc":"2.0","id":"\\q",') is None  # no such JSON escape
    assert request_id(b'{"jsonrpc":"2.0","id":"r-') is None  # cut off: unknown
    assert request_id(b"aaaa") is None


def _send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write((json.dumps(message) + "\n").encode())
    stdin.flush()


def _peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")  # pragma: no cover


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM needs /proc")
def test_a_50_mb_line_gets_an_error_and_the_server_keeps_serving(
    tmp_path: Path, repo: Path
) -> None:
    assert HUGE > 10 * MAX_LINE
    env = {**os.environ, "PERSONA_MIND_RANKER": "lexical"}  # no model: a steady baseline
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "persona_mind.cli",
            "mcp",
            "--agent-dir",
            str(tmp_path / "a"),
            "--pi-command",
            "none",
        ],
        cwd=repo,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    try:
        init = {"protocolVersion": "2025-06-18", "capabilities": {}}
        init["clientInfo"] = {"name": "cap-test", "version": "1"}
        _send(proc.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        assert json.loads(proc.stdout.readline())["id"] == 1
        _send(proc.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        head = b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"pad":"'
        proc.stdin.write(head + b"a" * (HUGE - len(head) - 4) + b'"}}\n')
        _send(proc.stdin, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        refused = json.loads(proc.stdout.readline())
        assert refused["id"] == 2  # the line began with its id
        assert refused["error"]["code"] == -32600
        assert str(HUGE - 1) in refused["error"]["message"]  # the bytes before the newline
        answered = json.loads(proc.stdout.readline())
        assert answered["id"] == 3
        assert "memory" in {t["name"] for t in answered["result"]["tools"]}
        assert _peak_kb(proc.pid) < PEAK_LIMIT_KB
    finally:
        proc.stdin.close()
        proc.stdout.close()
        assert proc.wait(timeout=30) == 0


@pytest.mark.asyncio
async def test_an_oversized_call_fails_for_the_sdk_client_and_the_next_call_works(
    tmp_path: Path, repo: Path
) -> None:
    from mcp.shared.exceptions import MCPError  # noqa: PLC0415  (the optional extra)

    with anyio.fail_after(90):
        async with mcp_client(tmp_path / "agent", repo, env=dict(os.environ)) as client:
            with pytest.raises(MCPError) as refused:
                await client.call_tool("memory", {"action": "recall", "query": "q" * MAX_LINE})
            assert refused.value.error.code == -32600
            assert "limit" in refused.value.error.message
            listed = await client.call_tool("memory", {"action": "list"})
            assert not listed.is_error
