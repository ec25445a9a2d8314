"""Automatic review in a simulated session on the real runtime (issue 12).

A remember followed by a settled turn launches one review worker after the 2-second
window; a new prompt during it cancels the worker; ``/mind optimize auto off`` then a
remember launches nothing; status and doctor report the scheduler (M-OPTIMIZE-AUTO-3, -7,
-9, -10, -18, -27). The host's events reach the Scheduler only through the Mind feature.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from persona_mind.messages.host import DisplayMessage, Input, Usage
from persona_mind.messages.runner import ListChildren
from persona_mind.mind.optimize._schedule import RECEIPT_ENTRY_TYPE
from persona_mind.testing import ManualClock
from persona_mind.testing._simhost import SimHost
from tests.integration.conftest import bind_team
from tests.schedule._harness import SignalModel

LONG = " before every push, and keep the integration suite green for each release"
WAIT = 10.0


@pytest.fixture
def signal(clock: ManualClock) -> SignalModel:
    return SignalModel(clock)


@pytest_asyncio.fixture
async def sim(
    tmp_path: Path, workspace: Path, clock: ManualClock, signal: SignalModel
) -> AsyncIterator[SimHost]:
    async with SimHost(
        agent_dir=tmp_path / "agent", cwd=workspace, clock=clock, child_backend=signal
    ) as host:
        await host.start()
        await bind_team(host)
        await host.command("/persona use architect")
        yield host


async def _remember(host: SimHost, text: str) -> None:
    saved = await host.call_tool(
        "memory", {"action": "remember", "kind": "convention", "text": text, "tier": "stm"}
    )
    assert not saved.is_error, saved.text


def _receipts(host: SimHost) -> list[str]:
    return [
        f"{e.data['phase']}:{e.data.get('outcome', '')}"
        for e in host.session.branch
        if e.custom_type == RECEIPT_ENTRY_TYPE
    ]


@pytest.mark.asyncio
async def test_remember_then_settle_launches_one_worker_and_input_cancels_it(
    sim: SimHost, clock: ManualClock, signal: SignalModel
) -> None:
    signal.on(phase="worker", hang=True)
    await _remember(sim, f"lint with ruff{LONG}")
    await _remember(sim, f"run ruff to lint{LONG}")
    await sim.turn("hello", usage=Usage(input_tokens=10, output_tokens=99))
    status = await sim.command("/mind optimize auto status")
    assert "dirty tiers: stm" in status.text
    assert "input tokens since the last launch: 10 of" in status.text  # output excluded
    clock.advance(1.999)
    assert "0 launched" in (await sim.command("/mind optimize auto")).text
    clock.advance(0.001)
    await asyncio.wait_for(signal.started.wait(), WAIT)
    workers = [c for c in signal.calls if c.kind == "worker"]
    assert len(workers) == 1
    assert workers[0].model == sim.model
    doctor = await sim.command("/mind doctor")
    assert "scheduler: in flight: auto-" in doctor.text
    await sim.turn("a new prompt")  # incoming input cancels the running review
    await asyncio.wait_for(signal.stopped.wait(), WAIT)
    assert signal.cancelled
    assert signal.finished == []
    assert _receipts(sim) == ["started:", "settled:interrupted"]
    runner = sim.runtime.child_runner
    assert runner is not None
    assert await runner.ask(ListChildren()) == ()  # no child left


@pytest.mark.asyncio
async def test_auto_off_then_remember_launches_nothing_M_OPTIMIZE_AUTO_4_5(
    sim: SimHost, clock: ManualClock, signal: SignalModel
) -> None:
    off = await sim.command("/mind optimize auto off")
    assert "automatic review: off" in off.text
    await _remember(sim, f"lint with ruff{LONG}")
    await _remember(sim, f"run ruff to lint{LONG}")
    await sim.turn("hello")
    clock.advance(10)
    status = await sim.command("/mind optimize auto status")
    assert "0 launched" in status.text
    assert "dirty tiers: none" in status.text
    assert not [c for c in signal.calls if c.kind == "worker"]
    bad = await sim.command("/mind optimize auto sometimes")
    assert bad.level == "error"


@pytest.mark.asyncio
async def test_env_off_makes_the_session_default_off_M_OPTIMIZE_AUTO_2(
    tmp_path: Path, workspace: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_PERSONA_MIND_OPTIMIZE", "off")
    async with SimHost(
        agent_dir=tmp_path / "agent", cwd=workspace, clock=clock, child_backend=SignalModel(clock)
    ) as host:
        await host.start()
        await bind_team(host)
        await host.command("/persona use architect")
        status = await host.command("/mind optimize auto")
        assert "automatic review: off" in status.text


@pytest.mark.asyncio
async def test_explicit_review_shares_the_single_flight_M_OPTIMIZE_AUTO_20(
    sim: SimHost, clock: ManualClock, signal: SignalModel
) -> None:
    """An explicit `/mind optimize` is refused while an automatic attempt runs; a slash
    command's input does not cancel that attempt; after it, explicit reviews run."""
    signal.on(phase="worker", hang=True, times=1)
    signal.on(phase="worker", reply='{"operations": []}')
    await _remember(sim, f"lint with ruff{LONG}")
    await _remember(sim, f"run ruff to lint{LONG}")
    await sim.turn("hello")
    clock.advance(2)
    await asyncio.wait_for(signal.started.wait(), WAIT)
    await sim.runtime.event(Input(text="/mind optimize stm"))  # a command, not a prompt
    refused = await sim.command("/mind optimize stm")
    assert refused.level == "error"
    assert "automatic review is running" in refused.text
    assert signal.cancelled == []
    await sim.turn("a real prompt")  # cancels the automatic attempt
    await asyncio.wait_for(signal.stopped.wait(), WAIT)
    shown = asyncio.Event()
    plain = sim.display

    async def display(message: DisplayMessage) -> None:
        await plain(message)
        shown.set()

    sim.display = display  # type: ignore[method-assign]
    done = await sim.command("/mind optimize stm")  # answered at acceptance (BATCH-8)
    assert done.level == "info", done.text
    assert "accepted: stm" in done.text
    await asyncio.wait_for(shown.wait(), WAIT)  # the report card follows
    assert "stm reviewed-no-op" in sim.displayed[-1].title
    assert len([c for c in signal.calls if c.kind == "worker"]) == 2
