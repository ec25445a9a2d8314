"""The hybrid ranker through the real runtime (SimHost): the Mind feature wires the shared
model edge, `/mind doctor` names the ranker, and vectors land beside the project store."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from persona_mind.embedding import shared_edge
from persona_mind.testing import ManualClock
from persona_mind.testing._simhost import SimHost
from tests.integration.conftest import bind_team

HAS_MODEL = importlib.util.find_spec("wordllama") is not None


@pytest.mark.asyncio
@pytest.mark.skipif(not HAS_MODEL, reason="the semantic extra (wordllama) is not installed")
async def test_runtime_ranks_hybrid_once_the_model_is_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PERSONA_MIND_RANKER")
    # the feature starts this load in the background; waiting here keeps the test exact
    assert shared_edge().load_now().hybrid
    ws = tmp_path / "workspace"
    (ws / ".git").mkdir(parents=True)
    async with SimHost(agent_dir=tmp_path / "agent", cwd=ws, clock=ManualClock()) as sim:
        await sim.start()
        await bind_team(sim)
        await sim.command("/persona use architect")
        for text in ("Deploys go out on Tuesdays", "The staging database is read-only"):
            saved = await sim.call_tool(
                "memory", {"action": "remember", "kind": "convention", "text": text,
                           "tier": "project"},
            )
            assert not saved.is_error, saved.text
        turn = await sim.turn("which weekday can we ship to production?")
        assert "Deploys go out on Tuesdays" in turn.system_prompt
        doctor = await sim.command("/mind doctor")
        assert "ranking: hybrid" in doctor.text
        recall = await sim.call_tool("memory", {"action": "recall", "query": "ship weekday"})
        assert "semantic" in recall.text
    vec = list((tmp_path / "agent" / "persona-mind" / "memory" / "project").glob("*.vec"))
    assert len(vec) == 1  # the derived cache sits beside the project store, not inside it


@pytest.mark.asyncio
async def test_runtime_ranks_lexically_when_opted_out(tmp_path: Path) -> None:
    """PERSONA_MIND_RANKER=lexical (set for every test by tests/conftest.py)."""
    ws = tmp_path / "workspace"
    (ws / ".git").mkdir(parents=True)
    async with SimHost(agent_dir=tmp_path / "agent", cwd=ws, clock=ManualClock()) as sim:
        await sim.start()
        await bind_team(sim)
        doctor = await sim.command("/mind doctor")
        assert "ranking: lexical" in doctor.text
