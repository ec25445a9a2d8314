"""The headless host in process: persona activation, reloads and session notes without Pi."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind._headless import HeadlessSession, SessionSetupError
from persona_mind.testing import ManualClock


@pytest.mark.asyncio
async def test_persona_is_active_and_survives_a_reload(team_agent: Path, repo: Path) -> None:
    """The active persona is restored from the host's kept entries after a reload request."""
    async with HeadlessSession(
        agent_dir=team_agent, cwd=repo, persona="architect", clock=ManualClock()
    ) as session:
        owner = await session.runtime.owner()
        assert owner.active_persona == "official/software-team/architect"
        assert (owner.session_manager, owner.cwd) == ("mcp", str(repo))
        note = await session.call(
            "memory",
            {
                "action": "remember",
                "kind": "note",
                "text": "kept in the session",
                "tier": "session",
            },
        )
        assert not note.is_error, note.text
        generation = owner.generation
        await session.host.request_reload()
        read = await session.call("memory", {"action": "read", "id": note.details["id"]})
        after = await session.runtime.owner()
        assert after.generation > generation  # the session was started again
        assert after.active_persona == "official/software-team/architect"
        assert not session.host.reload_requested
        assert not read.is_error, read.text  # the session note replayed from the kept entries
        assert "kept in the session" in read.text


@pytest.mark.asyncio
async def test_an_unknown_persona_refuses_setup_and_stops_the_runtime(
    team_agent: Path, repo: Path
) -> None:
    session = HeadlessSession(agent_dir=team_agent, cwd=repo, persona="nobody")
    with pytest.raises(SessionSetupError, match="persona nobody"):
        await session.__aenter__()
    with pytest.raises(Exception, match=r"not started|stopped"):
        await session.runtime.companion.ask(object())  # type: ignore[call-overload]


@pytest.mark.asyncio
async def test_mcp_client_writes_follow_the_write_policy(team_agent: Path, repo: Path) -> None:
    """``--write-policy confirm-all``: a client write is pending and waits for the user."""
    from persona_mind import Memory  # noqa: PLC0415

    async with HeadlessSession(
        agent_dir=team_agent, cwd=repo, clock=ManualClock(), write_policy="confirm-all"
    ) as session:
        held = await session.call(
            "memory", {"action": "remember", "kind": "gotcha", "text": "CI needs Docker"}
        )
        assert not held.is_error, held.text
        assert "Pending" in held.text
        assert "persona-mind memory pending approve" in held.text
        await session.host.request_reload()  # the flag survives a reload
        again = await session.call(
            "memory", {"action": "remember", "kind": "gotcha", "text": "CI needs Podman"}
        )
        assert "Pending" in again.text
    async with Memory(agent_dir=team_agent, cwd=repo) as memory:
        assert [f.fact.text for f in await memory.pending()] == [
            "CI needs Docker",
            "CI needs Podman",
        ]
        assert await memory.list() == []
