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

from persona_mind.mcp._lines import MAX_LINE, BoundedLines

HUGE = 50_000_000
PEAK_LIMIT_KB = 150 * 1024


async def _split(data: bytes, cap: int, chunk: int) -> tuple[list[str], list[int]]:
    view = memoryview(data)
    offset = 0
    refused: list[int] = []

    async def read(n: int) -> bytes:
        nonlocal offset
        piece = bytes(view[offset : offset + min(n, chunk)])
        offset += len(piece)
        return piece

    async def oversize(size: int) -> None:
        refused.append(size)

    lines = [line async for line in BoundedLines(read, cap, oversize)]
    return lines, refused


@pytest.mark.parametrize("chunk", [1, 3, 7, 1 << 20])
def test_lines_over_the_cap_are_dropped_and_counted(chunk: int) -> None:
    data = b'{"a":1}\n' + b"x" * 25 + b"\n\n" + b"y" * 10 + b"\r\n" + b"z" * 12 + b"\n" + b"w" * 30
    lines, refused = anyio.run(_split, data, 11, chunk)
    assert lines == ['{"a":1}', "y" * 10 + "\r"]  # 11 bytes: exactly the cap is kept
    assert refused == [25, 12, 30]  # the unterminated tail too


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
        assert refused["id"] is None
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
