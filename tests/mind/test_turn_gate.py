"""Issue 15 item 9: the model's load steps never start inside a ``before_agent_start`` turn.

The load's steps (the numpy import, the tokenizer read, the weights read) each wait on the
:class:`TurnGate` until no turn is in flight, at most the gate's cap in all.  The two reads
are replaced by recorders here, so these tests see *when* the real loader path would read,
not how long reading takes.  Waits are on events; the only real time is
the cap test's 50 ms cap, whose outcome does not depend on the machine's speed.
"""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace
from typing import Any, ClassVar, cast

import numpy as np
import pytest

from persona_mind.embedding import SemanticEdge, TurnGate, _bpe, _weights, shared_edge, turn_gate
from persona_mind.features import MindFeature
from persona_mind.messages.host import BeforeAgentStart

WAIT = 30.0
"""Generous upper bound on event waits: a failure, never the pass condition."""


class _FakeBPE:
    vocab: ClassVar[dict[str, int]] = {chr(i): i for i in range(256)}

    def encode(self, text: str) -> list[int]:
        return [ord(c) % 256 for c in text]


class _WatchedGate(TurnGate):
    """Says when the loading thread reaches each of its waits, with what cap, and what the
    wait returned; ``enter_at`` starts a turn just as the loader reaches that wait (0-based)."""

    def __init__(self, cap: float, enter_at: int | None = None) -> None:
        super().__init__(cap, settle=0.0)
        self.reached = [threading.Event() for _ in range(3)]
        self.caps: list[float | None] = []
        self.results: list[bool] = []
        self.enter_at = enter_at

    def wait_idle(self, cap: float | None = None) -> bool:
        n = len(self.caps)
        self.caps.append(cap)
        if n == self.enter_at:
            self.enter()
        self.reached[n].set()
        got = super().wait_idle(cap)
        self.results.append(got)
        return got


class _Parses(list[tuple[str, int]]):
    """Each read of the load (``tokenizer``, ``weights``) with the turns in flight at that
    moment, read from :attr:`gate`."""

    gate: TurnGate | None = None


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> _Parses:
    """Replaces the tokenizer and weights reads; each records the turns in flight."""
    seen = _Parses()

    def fake_tokenizer(*_a: object, **_k: object) -> _FakeBPE:
        assert seen.gate is not None
        seen.append(("tokenizer", seen.gate.in_flight))
        return _FakeBPE()

    def fake_weights(*_a: object, **_k: object) -> Any:
        assert seen.gate is not None
        seen.append(("weights", seen.gate.in_flight))
        return np.eye(256, 128, dtype=np.float32)

    monkeypatch.setattr(_bpe.LlamaBPE, "from_file", staticmethod(fake_tokenizer))
    monkeypatch.setattr(_weights, "read_f16_table", fake_weights)
    return seen


BOTH_IDLE = [("tokenizer", 0), ("weights", 0)]


def test_load_does_not_start_while_a_turn_is_in_flight_then_does(parses: _Parses) -> None:
    gate = _WatchedGate(cap=3600.0)  # only the turn's end can release it
    parses.gate = gate
    edge = SemanticEdge(turns=gate)
    gate.enter()  # a before_agent_start turn is running
    edge.start()
    assert gate.reached[0].wait(WAIT), "the loader never reached the gate"
    assert parses == []  # held before its imports: the cap is an hour, the turn still runs
    assert not gate.reached[1].is_set()
    assert not edge.settled.is_set()
    gate.leave()  # the turn ends
    assert edge.settled.wait(WAIT)
    assert parses == BOTH_IDLE  # read with no turn in flight
    assert gate.results == [True, True, True]  # before numpy, the tokenizer, the weights
    assert edge.status().hybrid


@pytest.mark.parametrize("enter_at", [1, 2])
def test_each_read_waits_for_a_turn_that_began_before_it(parses: _Parses, enter_at: int) -> None:
    """Issue 15 item 9: every read is gated itself, not just the load's start."""
    gate = _WatchedGate(cap=3600.0, enter_at=enter_at)  # a turn begins as that read is next
    parses.gate = gate
    edge = SemanticEdge(turns=gate)
    edge.start()
    assert gate.reached[enter_at].wait(WAIT)
    assert parses == BOTH_IDLE[: enter_at - 1]  # the read before it ran, this one waits
    assert not edge.settled.is_set()
    gate.leave()
    assert edge.settled.wait(WAIT)
    assert parses == BOTH_IDLE
    assert gate.results == [True, True, True]


def test_load_goes_ahead_at_once_when_no_turn_runs(parses: _Parses) -> None:
    gate = _WatchedGate(cap=3600.0)
    parses.gate = gate
    edge = SemanticEdge(turns=gate)
    edge.start()
    assert edge.settled.wait(WAIT)  # no turn: nothing to wait for, the hour-long cap unused
    assert parses == BOTH_IDLE
    assert gate.results == [True, True, True]


def test_cap_releases_the_load_when_turns_never_end(parses: _Parses) -> None:
    """A session never idle still gets its model: after the cap the load goes ahead, and
    the cap bounds all the load's waits together (the later ones get what is left: 0)."""
    gate = _WatchedGate(cap=0.05)
    parses.gate = gate
    edge = SemanticEdge(turns=gate)
    gate.enter()  # and never left
    edge.start()
    assert edge.settled.wait(WAIT)
    assert gate.results == [False, False, False]  # no idle moment came
    assert gate.caps[1:] == [0.0, 0.0]  # one shared budget, spent by the first wait
    assert parses == [("tokenizer", 1), ("weights", 1)]  # read with the turn in flight
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
    feature = MindFeature(cast(Any, SimpleNamespace(scheduler=None)), cast(Any, None))
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
