"""The Scheduler actor over a real Optimizer and ChildRunner (M-OPTIMIZE-AUTO-10..27).

Timers are messages on the ManualClock; the tests advance it instead of sleeping and wait
on events (a child started, a receipt settled), never on luck.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from persona_mind.errors import ActorStopped
from persona_mind.messages.host import CustomEntry
from persona_mind.messages.scheduler import (
    AutoSetting,
    Busy,
    Deactivate,
    ExplicitReview,
    Saved,
    Settled,
)
from persona_mind.mind._errors import InvalidArgument
from persona_mind.mind.optimize._schedule import RECEIPT_ENTRY_TYPE
from persona_mind.trace import read_trace
from tests.schedule._harness import MODEL, rig

WAIT = 10.0  # real seconds an event may take (never reached when the code is right)


@pytest.mark.asyncio
async def test_first_burst_launches_after_two_seconds_not_before_M_OPTIMIZE_AUTO_10_18(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path) as r:
        r.activate()
        r.ref.tell(Saved(tier="stm"))
        r.ref.tell(Settled(input_tokens=0))
        await r.status()
        r.clock.advance(1.999)
        assert "in flight: none" in await r.status()
        assert not r.model.started.is_set()
        r.clock.advance(0.001)
        await r.status()
        await asyncio.wait_for(r.settled_receipt.wait(), WAIT)
        assert r.phases() == ["started:", "settled:completed"]
        assert r.entries[0]["targets"] == ["stm"]
        assert len(r.model.calls) == 1
        assert r.model.calls[0].model == MODEL
        text = await r.status()
        assert "cooldown remaining: 300 s" in text
        assert "1 launched" in text


@pytest.mark.asyncio
async def test_shared_saves_and_usage_alone_launch_nothing_M_OPTIMIZE_AUTO_13_29(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path) as r:
        r.activate()
        r.ref.tell(Saved(tier="shared"))
        r.ref.tell(Settled(input_tokens=5_000_000))
        await r.status()
        r.clock.advance(10)
        text = await r.status()
        assert "0 launched" in text
        assert r.entries == []


@pytest.mark.asyncio
async def test_input_inside_the_window_defers_the_launch_M_OPTIMIZE_AUTO_18(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path) as r:
        r.activate()
        r.ref.tell(Saved(tier="stm"))
        r.ref.tell(Settled())
        await r.status()
        r.clock.advance(1.5)
        r.ref.tell(Busy(reason="input"))
        await r.status()
        r.clock.advance(5)
        assert "0 launched" in await r.status()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "source", ["input", "agent-start", "off", "deactivate", "generation", "shutdown"]
)
async def test_each_cancellation_source_stops_the_worker_M_OPTIMIZE_AUTO_27(
    tmp_path: Path, source: str
) -> None:
    async with rig(tmp_path, hang=True) as r:
        r.activate()
        r.ref.tell(Saved(tier="stm"))
        r.ref.tell(Settled())
        await r.status()
        r.clock.advance(2)
        await asyncio.wait_for(r.model.started.wait(), WAIT)
        if source in ("input", "agent-start"):
            r.ref.tell(Busy(reason=source))  # type: ignore[arg-type]
        elif source == "off":
            await r.ref.ask(AutoSetting(verb="off"))
        elif source == "deactivate":
            r.ref.tell(Deactivate(reason="session changed"))
        elif source == "generation":
            r.system.advance_generation()
        else:
            await r.system.stop()
        await asyncio.wait_for(r.model.stopped.wait(), WAIT)
        assert r.model.cancelled  # the child was cancelled, not finished
        assert r.model.finished == []
        if source != "shutdown":
            text = await r.status()
            assert "in flight: none" in text
            retry = "retry permission: stm" in text
            # an interruption may be retried later; `off` and a deactivated session may not
            assert retry == (source in ("input", "agent-start", "generation"))
    assert "settled:completed" not in r.phases()  # never treated as completed (AUTO-22)


@pytest.mark.asyncio
async def test_retry_waits_for_a_later_settle_and_the_cooldown_M_OPTIMIZE_AUTO_24_26(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path, hang=True) as r:
        r.activate()
        r.ref.tell(Saved(tier="stm"))
        r.ref.tell(Settled())
        await r.status()
        r.clock.advance(2)
        await asyncio.wait_for(r.model.started.wait(), WAIT)
        r.ref.tell(Busy(reason="input"))
        await asyncio.wait_for(r.model.stopped.wait(), WAIT)
        await r.status()
        r.clock.advance(600)  # cancellation alone never relaunches
        assert "1 launched" in await r.status()
        r.ref.tell(Settled())  # a later settle, no tokens, cooldown over
        await r.status()
        r.model.started.clear()
        r.clock.advance(2)
        await asyncio.wait_for(r.model.started.wait(), WAIT)
        assert "2 launched" in await r.status()
        assert r.entries[-1]["retry"] is True


@pytest.mark.asyncio
async def test_fifty_triggers_yield_one_admission_from_the_trace_M_OPTIMIZE_AUTO_20(
    tmp_path: Path,
) -> None:
    trace = tmp_path / "trace.jsonl"
    async with rig(tmp_path, hang=True, trace=trace) as r:
        r.activate()
        r.ref.tell(Saved(tier="stm"))
        r.ref.tell(Settled())
        await r.status()
        r.clock.advance(2)
        await asyncio.wait_for(r.model.started.wait(), WAIT)
        for n in range(50):
            r.ref.tell(Saved(tier="stm" if n % 2 else "project"))
            r.ref.tell(Settled(input_tokens=100_000))
        await r.status()
        r.clock.advance(2)
        text = await r.status()
        assert "50 coalesced" in text
        with pytest.raises(InvalidArgument, match="automatic review is running"):
            await r.ref.ask(ExplicitReview(owner="s1#1", scope=r.scope, target="stm", model=MODEL))
        r.ref.tell(Busy(reason="input"))
        await asyncio.wait_for(r.model.stopped.wait(), WAIT)
    reviews = [e for e in read_trace(trace) if e.ev == "send" and e.type == "OptimizeReview"]
    assert len(reviews) == 1
    assert len(r.model.calls) == 1


@pytest.mark.asyncio
async def test_unchanged_store_is_skipped_by_the_digest_M_OPTIMIZE_AUTO_23(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path) as r:
        r.activate()
        r.ref.tell(Saved(tier="stm"))
        r.ref.tell(Settled())
        await r.status()
        r.clock.advance(2)
        await asyncio.wait_for(r.settled_receipt.wait(), WAIT)  # a reviewed no-op
        r.clock.advance(300)
        r.ref.tell(Saved(tier="stm"))  # marked dirty, but the store did not change
        r.ref.tell(Settled(input_tokens=1_000_000))
        await r.status()
        r.clock.advance(2)
        for _ in range(3):  # the probe's asks round-trip through the Optimizer
            text = await r.status()
            if "1 skipped" in text:
                break
            await asyncio.sleep(0.05)
        assert "1 skipped unchanged" in text
        assert "1 launched" in text
        assert len(r.model.calls) == 1


@pytest.mark.asyncio
async def test_receipts_of_a_resumed_session_keep_the_first_attempt_M_OPTIMIZE_AUTO_17(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path) as r:
        wall = r.clock.wall()
        entries = (
            CustomEntry(
                custom_type=RECEIPT_ENTRY_TYPE,
                data={"phase": "started", "attempt": "a", "targets": ["stm"], "at": wall - 400},
            ),
            CustomEntry(
                custom_type=RECEIPT_ENTRY_TYPE,
                data={"phase": "settled", "attempt": "a", "outcome": "completed"},
            ),
        )
        r.activate(entries)
        r.ref.tell(Saved(tier="stm"))
        r.ref.tell(Settled(input_tokens=999_999))
        await r.status()
        r.clock.advance(2)
        text = await r.status()
        assert "0 launched" in text
        assert "first attempt needs none" not in text


@pytest.mark.asyncio
async def test_on_waits_for_the_next_save_and_off_queues_nothing_M_OPTIMIZE_AUTO_5_6(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path, enabled=False) as r:
        r.activate()
        r.ref.tell(Saved(tier="stm"))
        r.ref.tell(Settled())
        await r.status()
        r.clock.advance(3)
        assert "automatic review: off" in await r.status()
        await r.ref.ask(AutoSetting(verb="on"))
        r.ref.tell(Settled())
        await r.status()
        r.clock.advance(3)
        assert "0 launched" in await r.status()  # the save made while off is not queued
        r.ref.tell(Saved(tier="stm"))
        r.ref.tell(Settled())
        await r.status()
        r.clock.advance(2)
        await asyncio.wait_for(r.settled_receipt.wait(), WAIT)
        assert "1 launched" in await r.status()


@pytest.mark.asyncio
async def test_restart_keeps_the_schedule_and_turns_the_flight_into_retry(
    tmp_path: Path,
) -> None:
    """Restart contract (docs/actors.md): setting, tokens and cooldown survive a crash; the
    attempt the crash cut is interrupted, never completed (M-OPTIMIZE-AUTO-22)."""
    async with rig(tmp_path, fail_started_once=True) as r:
        r.activate()
        await r.ref.ask(AutoSetting(verb="on"))
        r.ref.tell(Saved(tier="stm"))
        r.ref.tell(Settled(input_tokens=7))
        await r.status()
        r.clock.advance(2)  # launch → the started receipt raises → crash → restart
        with pytest.raises(ActorStopped):  # the ask queued behind the crash
            await r.status()
        text = await r.status()
        assert r.ref.statistics().restarts == 1
        assert "automatic review: on" in text
        assert "in flight: none" in text
        assert "retry permission: stm" in text
        assert "1 launched" in text
        assert "cooldown remaining: 300 s" in text
        assert r.model.calls == []  # the review never started
