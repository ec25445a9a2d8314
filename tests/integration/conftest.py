"""A simulated session on the real runtime, in a temporary agent dir and git workspace."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from persona_mind.testing import ManualClock
from persona_mind.testing._scripted import ScriptedModel
from persona_mind.testing._simhost import SimHost


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    (ws / ".git").mkdir(parents=True)
    return ws


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def model(clock: ManualClock) -> ScriptedModel:
    return ScriptedModel(clock)


@pytest_asyncio.fixture
async def host(
    tmp_path: Path, workspace: Path, clock: ManualClock, model: ScriptedModel
) -> AsyncIterator[SimHost]:
    async with SimHost(
        agent_dir=tmp_path / "agent", cwd=workspace, clock=clock, child_backend=model
    ) as sim:
        await sim.start()
        yield sim


async def bind_team(host: SimHost, pack: str = "software-team") -> None:
    """Install an official pack and bind it to the session (a user command: no plan)."""
    result = await host.command(f"/persona pack install {pack}")
    assert result.level == "info", result.text
    result = await host.command(f"/persona team select {pack}")
    assert result.level == "info", result.text
