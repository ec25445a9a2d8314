"""Issue 15 item 9: the model's tokenizer parse never overlaps a ``before_agent_start`` turn.

The load's one unsplittable GIL hold (``WordLlama.load``: the tokenizer parse and the weights
read) waits on the :class:`TurnGate` until no turn is in flight, at most the gate's cap.
``WordLlama.load`` is replaced by a recorder here, so these tests see *when* the real loader
path would parse, not how long the parse takes.  Waits are on events; the only real time is
the cap test's 50 ms cap, whose outcome does not depend on the machine's speed.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, cast

import numpy as np
import pytest
import wordllama

from persona_mind.embedding import SemanticEdge, TurnGate, shared_edge, turn_gate
from persona_mind.features import MindFeature
from persona_mind.messages.host import BeforeAgentStart

WAIT = 30.0
"""Generous upper bound on event waits: a failure, never the pass condition."""


class _FakeTokenizer:
    padding = None


class _FakeModel:
    tokenizer = _FakeTokenizer()
    embedding = np.eye(256, dtype=np.float32)


class _WatchedGate(TurnGate):
    """Says when the loading thread starts waiting, and what the wait returned."""

    def __init__(self, cap: float) -> None:
        super().__init__(cap)
        self.waiting = threading.Event()
        self.results: list[bool] = []

    def wait_idle(self, cap: float | None = None) -> bool:
        self.waiting.set()
        got = super().wait_idle(cap)
        self.results.append(got)
        return got


class _Parses(list[int]):
    """The turns in flight at each ``WordLlama.load`` call, read from :attr:`gate`."""

    gate: TurnGate | None = None


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> _Parses:
    """Replaces ``WordLlama.load``; each call records the turns in flight at that moment."""
    seen = _Parses()

    def fake_load(*_a: object, **_k: object) -> _FakeModel:
        assert seen.gate is not None
        seen.append(seen.gate.in_flight)
        return _FakeModel()

    monkeypatch.setattr(wordllama.WordLlama, "load", staticmethod(fake_load))
    return seen


def test_load_does_not_parse_while_a_turn_is_in_flight_then_does(parses: _Parses) -> None:
    gate = _WatchedGate(cap=3600.0)  # only the turn's end can release it
    parses.gate = gate
    edge = SemanticEdge(turns=gate)
    gate.enter()  # a before_agent_start turn is running
    edge.start()
    assert gate.waiting.wait(WAIT), "the loader never reached the gate"
    assert parses == []  # held before the parse: the cap is an hour, the turn still runs
    assert not edge.settled.is_set()
    gate.leave()  # the turn ends
    assert edge.settled.wait(WAIT)
    assert parses == [0]  # parsed with no turn in flight
    assert gate.results == [True]
    assert edge.status().hybrid


def test_load_parses_at_once_when_no_turn_runs(parses: _Parses) -> None:
    gate = _WatchedGate(cap=3600.0)
    parses.gate = gate
    edge = SemanticEdge(turns=gate)
    edge.start()
    assert edge.settled.wait(WAIT)  # no turn: nothing to wait for, the hour-long cap unused
    assert parses == [0]
    assert gate.results == [True]


def test_cap_releases_the_load_when_turns_never_end(parses: _Parses) -> None:
    """A session never idle still gets its model: after the cap the parse goes ahead."""
    gate = _WatchedGate(cap=0.05)
    parses.gate = gate
    edge = SemanticEdge(turns=gate)
    gate.enter()  # and never left
    edge.start()
    assert edge.settled.wait(WAIT)
    assert gate.results == [False]  # the cap ran out, no idle moment came
    assert parses == [1]  # parsed with the turn still in flight
    assert edge.status().hybrid
    gate.leave()


def test_shared_edge_waits_on_the_process_wide_gate() -> None:
    assert shared_edge().turns is turn_gate()


# -- the Mind feature holds the gate for the whole injection -----------------------------


class _StubSession:
    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.inside = asyncio.Event()
        self.in_flight: int | None = None

    async def before_agent_start(self, _event: BeforeAgentStart) -> None:
        self.in_flight = turn_gate().in_flight
        self.inside.set()
        if self.behaviour == "raise":
            raise RuntimeError("injection failed")
        if self.behaviour == "block":
            await asyncio.Event().wait()


def _feature(session: _StubSession) -> MindFeature:
    feature = MindFeature(cast(Any, None), cast(Any, None), None)
    feature._session = cast(Any, session)
    return feature


@pytest.mark.asyncio
async def test_turn_is_in_flight_during_the_injection_and_left_after() -> None:
    base = turn_gate().in_flight
    session = _StubSession("return")
    await _feature(session)._on_event(BeforeAgentStart(prompt="x"), cast(Any, None))
    assert session.in_flight == base + 1
    assert turn_gate().in_flight == base


@pytest.mark.asyncio
async def test_turn_is_left_when_the_injection_raises() -> None:
    base = turn_gate().in_flight
    session = _StubSession("raise")
    with pytest.raises(RuntimeError, match="injection failed"):
        await _feature(session)._on_event(BeforeAgentStart(prompt="x"), cast(Any, None))
    assert session.in_flight == base + 1
    assert turn_gate().in_flight == base


@pytest.mark.asyncio
async def test_turn_is_left_when_the_injection_is_cancelled() -> None:
    base = turn_gate().in_flight
    session = _StubSession("block")
    task = asyncio.create_task(
        _feature(session)._on_event(BeforeAgentStart(prompt="x"), cast(Any, None))
    )
    await session.inside.wait()
    assert turn_gate().in_flight == base + 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert turn_gate().in_flight == base


def test_leave_without_enter_is_a_caller_bug() -> None:
    with pytest.raises(RuntimeError, match="without a matching enter"):
        TurnGate().leave()
