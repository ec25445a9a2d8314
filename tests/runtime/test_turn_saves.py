"""The Persona half's state reaches the Owner on every change, and a quiet turn builds none.

After every event the Persona feature sends its session's state to the Owner when it
changed (``PersonaFeature._save``, so a restarted Companion resumes from it). Whether it
changed is judged on the inputs of that state first: a ``before_agent_start`` that changes
nothing builds no :class:`PersonaSession` (the turn's budget, issue 10), and each input
changed later still reaches the Owner (no stale copy).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from persona_mind.messages.host import (
    AgentSettled,
    AgentStart,
    BeforeAgentStart,
    Input,
    SessionTree,
)
from persona_mind.messages.owner import GetPersonaSession
from persona_mind.persona import PersonaSession
from persona_mind.sim import SimHost
from persona_mind.testing import ManualClock


def _host(tmp_path: Path) -> SimHost:
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    return SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock())


def _count_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    built = [0]
    of = PersonaSession.of.__func__  # type: ignore[attr-defined]

    def counted(cls: type[PersonaSession], *args: Any, **kwargs: Any) -> PersonaSession:
        built[0] += 1
        return of(cls, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(PersonaSession, "of", classmethod(counted))
    return built


async def _held(host: SimHost) -> PersonaSession:
    held = await host.runtime.owner_ref.ask(GetPersonaSession())
    assert isinstance(held, PersonaSession)
    return held


@pytest.mark.asyncio
async def test_a_turn_that_changes_nothing_builds_no_persona_session(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async with _host(tmp_path) as host:
        await host.start()
        await host.turn("first")
        built = _count_builds(monkeypatch)
        for _ in range(3):
            injection = await host.runtime.event(BeforeAgentStart(prompt="again"))
            assert injection is not None
        assert built == [0]


@pytest.mark.asyncio
async def test_every_change_after_quiet_turns_reaches_the_owner(tmp_path: Path) -> None:
    async with _host(tmp_path) as host:
        await host.start()
        await host.turn("first")
        await host.runtime.event(BeforeAgentStart(prompt="quiet"))
        before = await _held(host)
        assert (before.user_messages, before.idle) == (1, True)
        await host.runtime.event(Input(text="second"))
        assert (await _held(host)).user_messages == 2
        await host.runtime.event(BeforeAgentStart(prompt="quiet"))
        await host.runtime.event(AgentStart())
        assert (await _held(host)).idle is False
        await host.runtime.event(AgentSettled())
        assert (await _held(host)).idle is True
        await host.runtime.event(SessionTree(entries=(), leaf_id="leaf-2"))
        await host.runtime.event(BeforeAgentStart(prompt="quiet"))
        assert (await _held(host)).branch == "leaf-2"
