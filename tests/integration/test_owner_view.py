"""The Companion's copy of the Owner's state (issue 10, ``before_agent_start``).

A turn no longer asks the Owner for its state: the Companion keeps the state it was last
told (``OwnerChanged``, and the Owner's answers to ``SessionStart``/``SessionShutdown``).
That copy is exact because the Owner broadcasts every change before it answers anything
else, so the change is in the Companion's mailbox before any host event that follows it —
across an Owner restart too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from persona_mind.actors.companion import CompanionActor
from persona_mind.errors import ActorStopped
from persona_mind.messages.host import BeforeAgentStart
from persona_mind.messages.owner import OwnerMsg, OwnerState, SetWorkspace
from persona_mind.runtime import Runtime
from persona_mind.testing import ManualClock
from persona_mind.testing._simhost import SimHost
from tests.integration._turn_trace import turn_deliveries


def _companion_view(runtime: Runtime) -> OwnerState:
    actor: Any = runtime.companion._cell.actor
    assert isinstance(actor, CompanionActor)
    return actor.owner


async def _turn(runtime: Runtime, prompt: str = "what do we deploy on?") -> None:
    injected = await runtime.event(BeforeAgentStart(prompt=prompt, system_prompt="x"))
    assert injected is not None


@pytest.mark.asyncio
async def test_a_turn_asks_the_owner_nothing(tmp_path: Path, workspace: Path) -> None:
    to_owner = await turn_deliveries(tmp_path, workspace, "owner")
    assert to_owner == []


@pytest.mark.asyncio
async def test_the_companions_copy_follows_every_owner_change_and_an_owner_restart(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from persona_mind.actors.owner import OwnerActor  # noqa: PLC0415

    real = OwnerActor.receive

    async def crash_once(self: OwnerActor, message: OwnerMsg) -> object:
        if isinstance(message, SetWorkspace) and message.cwd == "/boom":
            raise RuntimeError("owner fell over mid-work")
        return await real(self, message)

    monkeypatch.setattr(OwnerActor, "receive", crash_once)
    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock()) as host:
        runtime = host.runtime
        await host.start()
        await _turn(runtime)
        started = await runtime.owner()
        assert started.session_id is not None
        assert _companion_view(runtime) == started

        # a change made by another actor (not through the Companion): told, then applied
        # before the next turn, in mailbox order
        sub = workspace / "sub"
        sub.mkdir()
        moved = await runtime.owner_ref.ask(SetWorkspace(cwd=str(sub)))
        assert moved.generation == started.generation + 1
        await _turn(runtime)
        assert _companion_view(runtime) == moved == await runtime.owner()

        # the Owner crashes mid-work and restarts with its state; the copy still matches
        with pytest.raises(ActorStopped, match="crashed while handling SetWorkspace"):
            await runtime.owner_ref.ask(SetWorkspace(cwd="/boom"))
        assert runtime.owner_ref.statistics().restarts == 1
        await _turn(runtime)
        assert _companion_view(runtime) == await runtime.owner() == moved

        # and a change after the restart still reaches the Companion (subscribers kept)
        back = await runtime.owner_ref.ask(SetWorkspace(cwd=str(workspace)))
        assert back.generation == moved.generation + 1
        await _turn(runtime)
        assert _companion_view(runtime) == back == await runtime.owner()

        # a new session: the Companion takes the Owner's answer to SessionStart
        await host.start(reason="new")
        await _turn(runtime)
        renewed = await runtime.owner()
        assert renewed.session_id != started.session_id
        assert _companion_view(runtime) == renewed
