"""SimHost drives every session_start reason like Pi does (issue 2, item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.testing import ManualClock, SimHost


@pytest.mark.asyncio
async def test_each_start_reason_bumps_the_generation_and_keeps_identity_rules(
    tmp_path: Path,
) -> None:
    """startup/reload/resume keep the session; new replaces it; fork keeps its origin."""
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    async with SimHost(agent_dir=tmp_path / "agent", cwd=ws, clock=ManualClock()) as host:
        generations = []
        await host.start("startup")
        first = await host.runtime.owner()
        generations.append(first.generation)
        for reason in ("reload", "resume"):
            await host.start(reason)
            state = await host.runtime.owner()
            assert state.session_id == first.session_id
            generations.append(state.generation)
        await host.start("new")
        replaced = await host.runtime.owner()
        assert replaced.session_id != first.session_id
        generations.append(replaced.generation)
        await host.start("fork")
        forked = await host.runtime.owner()
        assert forked.session_id not in (first.session_id, replaced.session_id)
        assert forked.origin_session_id == replaced.session_id
        generations.append(forked.generation)
        assert generations == sorted(set(generations)), "every start bumps the generation"
        await host.shutdown()
        assert not (await host.runtime.owner()).ready


@pytest.mark.asyncio
async def test_a_fork_keeps_the_branch_entries_and_their_origin(tmp_path: Path) -> None:
    """A fork copies the active branch (session notes live there) and keeps originSessionId."""
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    async with SimHost(agent_dir=tmp_path / "agent", cwd=ws, clock=ManualClock()) as host:
        await host.start()
        await host.command("/persona pack install software-team")
        await host.command("/persona team select software-team")
        await host.command("/persona use architect")
        note = await host.call_tool(
            "memory",
            {
                "action": "remember",
                "kind": "note",
                "text": "Fork me: the plan is v2",
                "tier": "session",
            },
        )
        assert not note.is_error, note.text
        parent = host.session
        await host.start("fork")
        assert host.session.origin_session_id == parent.session_id
        assert host.session.branch == parent.branch
        turn = await host.turn("what is the plan?")
        assert "Fork me: the plan is v2" in turn.system_prompt
