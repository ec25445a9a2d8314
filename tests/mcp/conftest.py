"""Real ``persona-mind mcp`` server processes driven by the SDK's own stdio client."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP server is the optional [mcp] extra (in [test])")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from persona_mind.cli import main


def server_params(
    agent: Path, cwd: Path, *extra: str, env: dict[str, str] | None = None
) -> StdioServerParameters:
    """``persona-mind mcp`` in ``cwd`` (the client's project), children off unless ``extra``
    passes another ``--pi-command`` (the last one wins)."""
    return StdioServerParameters(
        env=env,
        command=sys.executable,
        args=[
            "-m",
            "persona_mind.cli",
            "mcp",
            "--agent-dir",
            str(agent),
            "--pi-command",
            "none",
            *extra,
        ],
        cwd=str(cwd),
    )


@asynccontextmanager
async def mcp_client(
    agent: Path, cwd: Path, *extra: str, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """An initialised client session on a fresh server process."""
    async with (
        stdio_client(server_params(agent, cwd, *extra, env=env)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def team_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """An agent dir with software-team installed and chosen for new sessions."""
    agent = tmp_path / "agent"
    assert main(["pack", "install", "software-team", "--agent-dir", str(agent)]) == 0
    assert main(["persona", "default", "set", "software-team", "--agent-dir", str(agent)]) == 0
    capsys.readouterr()
    return agent
