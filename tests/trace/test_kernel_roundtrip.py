"""The kernel's trace writer and this package's reader agree: a real ActorSystem run with
``trace_path`` reads back strictly, pairs every send with one delivery or drop, and
renders (issue 2 item 5; ARCHITECTURE "Actor trace")."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from persona_mind.actors import Actor, ActorRef, ActorSystem
from persona_mind.errors import ActorStopped
from persona_mind.messages._base import Msg
from persona_mind.trace import TraceFilter, read_trace, render_mermaid, summarize

if TYPE_CHECKING:
    from pathlib import Path


class Put(Msg, frozen=True, kw_only=True):
    n: int


class Count(Msg, frozen=True, kw_only=True):
    pass


class NewGen(Msg, frozen=True, kw_only=True):
    generation: int


class Relay(Msg, frozen=True, kw_only=True):
    n: int


class Crash(Msg, frozen=True, kw_only=True):
    pass


class Sink(Actor[Put | Count | NewGen]):
    def __init__(self) -> None:
        self.total = 0

    async def receive(self, message: Put | Count | NewGen) -> object:
        match message:
            case Put():
                self.total += message.n
                return None
            case Count():
                return self.total
            case NewGen():  # stands in for the Owner
                self.system.advance_generation(message.generation)
                return None


class Front(Actor[Relay | Crash]):
    def __init__(self, sink: ActorRef[Put | Count | NewGen]) -> None:
        self.sink = sink

    async def receive(self, message: Relay | Crash) -> object:
        match message:
            case Relay():
                self.sink.tell(Put(n=message.n))
                return message.n
            case Crash():
                raise RuntimeError("front fell over")


@pytest.mark.asyncio
async def test_a_kernel_run_reads_back_and_renders(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    async with ActorSystem(trace_path=path) as system:
        sink = system.spawn(Sink, name="sink")
        front = system.spawn(lambda: Front(sink), name="front")
        assert await front.ask(Relay(n=2)) == 2
        await sink.ask(NewGen(generation=2))
        sink.tell(Put(n=100), generation=1)  # stale: dropped, counted, traced
        with pytest.raises(ActorStopped):
            await front.ask(Crash())
        assert await front.ask(Relay(n=3)) == 3
        assert await sink.ask(Count()) == 5
        system.trace_child("runner", "exit", pid=4242, code=0)

    events = read_trace(path)
    summary = summarize(events)
    assert summary.duplicate_deliveries == []
    assert summary.undelivered == []
    assert summary.drops_by_reason == {"stale-generation": 1}
    assert summary.restarts == {"front": 1}
    assert summary.crashes == {"front": 1}
    assert summary.per_actor["runner"] == {"child": 1}

    # A tell made while handling a message carries the handler's correlation id.
    relay = next(e for e in events if e.ev == "send" and e.type == "Relay")
    chain = list(TraceFilter(corrs=frozenset({relay.corr or ""})).apply(events))
    assert [(e.ev, e.actor, e.sender, e.type) for e in chain] == [
        ("send", "front", None, "Relay"),
        ("deliver", "front", None, "Relay"),
        ("send", "sink", "front", "Put"),
        ("deliver", "sink", "front", "Put"),
    ]
    diagram = render_mermaid(events).splitlines()
    assert f"    host->>front: Relay #35;{relay.id}" in diagram
    assert any(line.startswith("    front->>sink: Put #35;") for line in diagram)
    assert any(line.startswith("    Note over sink: drop Put #35;") for line in diagram)
