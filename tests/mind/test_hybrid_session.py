"""The hybrid ranker through the real runtime (SimHost): the Mind feature wires the shared
model edge, `/mind doctor` names the ranker, and vectors land beside the project store."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest

from persona_mind.embedding import shared_edge
from persona_mind.embedding._edge import INLINE_ROWS
from persona_mind.mind import Fact, MindScope
from persona_mind.mind._scope import find_project
from persona_mind.storage import FileStore, Layout
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
                "memory",
                {"action": "remember", "kind": "convention", "text": text, "tier": "project"},
            )
            assert not saved.is_error, saved.text
        turn = await sim.turn("which weekday can we ship to production?")
        assert "Deploys go out on Tuesdays" in turn.system_prompt
        doctor = await sim.command("/mind doctor")
        assert "ranking: hybrid" in doctor.text
        recall = await sim.call_tool("memory", {"action": "recall", "query": "ship weekday"})
        assert "semantic" in recall.text
        for write in shared_edge().writes():  # a first cache file is written off the loop
            await asyncio.wrap_future(write)
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


@pytest.mark.asyncio
@pytest.mark.skipif(not HAS_MODEL, reason="the semantic extra (wordllama) is not installed")
async def test_runtime_turns_on_a_large_store_warm_up_off_the_loop_then_rank_hybrid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 15 item 9 through the real runtime: the first turn that has the model in but
    not the store's vectors is answered lexically and says so (the bind went to the edge's
    worker); once that bind is done, turns rank hybrid."""
    monkeypatch.delenv("PERSONA_MIND_RANKER")
    edge = shared_edge()
    assert edge.load_now().hybrid
    ws = tmp_path / "workspace"
    (ws / ".git").mkdir(parents=True)
    agent = tmp_path / "agent"
    target = MindScope(agent, None, find_project(ws)).fact_target("project")
    rows = tuple(
        Fact(
            id=f"m_{i:08x}",
            kind="convention",
            recordedAt=1.0 + i,
            lastSeenAt=1.0 + i,
            text=f"parser cache note {i} about retry schema token {i % 17}",
        )
        for i in range(INLINE_ROWS + 44)
    )
    FileStore(Layout(agent)).mutate(target, lambda _old: rows)
    async with SimHost(agent_dir=agent, cwd=ws, clock=ManualClock()) as sim:
        await sim.start()
        await bind_team(sim)
        first = await sim.turn("fix the parser cache retry")
        assert any("warming up" in d for d in first.injection.disclosures), first.injection
        assert "parser cache note" in first.system_prompt  # lexical, but memory all the same
        for job in edge.pending():
            await asyncio.wrap_future(job)
        warm = await sim.turn("fix the parser cache retry")
        assert not any("ranking: lexical" in d for d in warm.injection.disclosures)
        doctor = await sim.command("/mind doctor")
        assert "ranking: hybrid" in doctor.text
    encoder = edge.encoder
    assert encoder is not None
    assert target.path.with_name(f"{target.path.name}.{encoder.model_id}.vec").is_file()
