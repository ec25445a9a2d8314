"""The actor trace: every delivered message appears exactly once (issue 2 acceptance)."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from persona_mind.actors import ActorRef, ActorSystem
from persona_mind.errors import ActorStopped
from persona_mind.testing import ManualClock
from persona_mind.trace import read_trace
from tests.actors._fixtures import Boom, Log, Put, Recorder, SetGen
from tests.actors.test_fanout_clock_bridge import Ping, Relay


@pytest.mark.asyncio
async def test_every_delivered_message_appears_exactly_once_in_the_trace(tmp_path: Path) -> None:
    """Each delivery is one 'deliver' line with a unique id that matches one 'send' line."""
    path = tmp_path / "trace.jsonl"
    async with ActorSystem(clock=ManualClock(), trace_path=path) as system:
        peer_a: list[ActorRef[Ping]] = []
        peer_b: list[ActorRef[Ping]] = []
        chain_done = asyncio.Event()
        a = system.spawn(lambda: Relay(peer_b, chain_done), name="a")
        b = system.spawn(lambda: Relay(peer_a, chain_done), name="b")
        peer_a.append(a)
        peer_b.append(b)
        rec = system.spawn(Recorder, name="rec")
        assert await a.ask(Ping(hops=9)) == 9
        for seq in range(20):
            rec.tell(Put(sender="t", seq=seq))
        log = await rec.ask(Log())
        assert len(log) == 20
        await asyncio.wait_for(chain_done.wait(), 5)
        delivered_counts = {s.name: s.delivered for s in system.statistics()}
    events = read_trace(path)
    delivers = [e for e in events if e.ev == "deliver"]
    sends = {e.id: e for e in events if e.ev == "send"}
    ids = Counter(e.id for e in delivers)
    assert all(n == 1 for n in ids.values()), "a message was traced as delivered twice"
    assert set(ids) <= set(sends), "a delivery without its send"
    per_actor = Counter(e.actor for e in delivers)
    assert per_actor == {k: v for k, v in delivered_counts.items() if v}
    # the relay chain is one correlation: the ask started it, every hop inherited it
    relay = [e for e in delivers if e.actor in ("a", "b")]
    assert len({e.corr for e in relay}) == 1
    assert {e.sender for e in relay} == {None, "a", "b"}


@pytest.mark.asyncio
async def test_drops_crashes_and_restarts_are_traced(tmp_path: Path) -> None:
    """Stale-generation drops, crashes and restarts each leave a line with a reason."""
    path = tmp_path / "trace.jsonl"
    async with ActorSystem(clock=ManualClock(), trace_path=path) as system:
        rec = system.spawn(Recorder, name="rec")
        await rec.ask(SetGen(generation=3))
        rec.tell(Put(sender="old", seq=0), generation=2)
        with pytest.raises(ActorStopped):
            await rec.ask(Boom())
        await rec.ask(Log())
    events = read_trace(path)
    drops = [e for e in events if e.ev == "drop"]
    assert [(e.type, e.reason, e.gen) for e in drops] == [("Put", "stale-generation", 2)]
    assert [e.ev for e in events if e.ev in ("crash", "restart")] == ["crash", "restart"]
    assert events[-1].ev == "stop"


@pytest.mark.asyncio
async def test_tracing_is_off_without_a_path(tmp_path: Path) -> None:
    """No path and no PERSONA_MIND_TRACE: nothing is written and ids are never assigned."""
    async with ActorSystem(clock=ManualClock()) as system:
        assert not system.tracer.enabled
        rec = system.spawn(Recorder, name="rec")
        await rec.ask(Log())
    assert list(tmp_path.iterdir()) == []
