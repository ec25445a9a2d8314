"""The turn gate: the model's load keeps its steps out of a running turn.

The load used to hold the GIL in long calls — ``tokenizers.Tokenizer.from_file`` parsed the
tokenizer in one Rust call of ~55–70 ms, and wordllama's imports held it in long stretches —
and landing inside a ``before_agent_start`` turn they stopped the event loop for as long
(issue 15 item 9; ``docs/bridge.md``, "The remaining GIL stalls", item 3).  The tokenizer
and the weights are now read in short steps by persona-mind's own readers (``_bpe``,
``_weights``), but the numpy import still loads its libraries in calls that cannot be
split, and a turn is better off without any of it: the Mind feature counts the turns in
flight here, and the loading thread waits for zero before each step.

The event loop owns the count (one writer, no lock: turns enter and leave in the loop's
order) and publishes "no turn in flight" as a :class:`threading.Event`; it never blocks on
it.  Only the loading thread waits on that event, :attr:`TurnGate.settle` before it starts (a
first prompt sent right after ``SessionStart`` is then in flight before the imports begin)
and at most :attr:`TurnGate.cap` seconds in all for turns to end, so a session that is never
idle still gets its model.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ("LOAD_SETTLE", "LOAD_WAIT_CAP", "TurnGate", "yield_gil")


def yield_gil() -> None:
    """Give the GIL (and the core) away between two steps of background work: ``sleep(0)``
    releases the GIL unconditionally, where the switch interval only forces a hand-over
    when the loop has already asked for it."""
    time.sleep(0)


LOAD_WAIT_CAP = 2.0
"""Seconds the loading thread waits, at most and in all, for the turns in flight to end.  A
turn's budget is 750 ms, so this outlasts one or two back-to-back turns; after it the load
goes ahead anyway (a stall in one turn beats ranking lexically for the whole session)."""

LOAD_SETTLE = 0.25
"""Seconds the background load sleeps before its first step.  It starts at the first
session event; a prompt that follows ``SessionStart`` at once reaches ``before_agent_start``
within tens of milliseconds, and without the pause the numpy import was already running
when that turn began (it cannot be paused once started).  A person typing the prompt takes
longer than this and the load still ends in the typing time; turns rank lexically (and say
so) until it does."""


class TurnGate:
    """Counts turns in flight (loop side) and lets a loading thread wait for none.

    :meth:`turn` and :meth:`enter`/:meth:`leave` are called by one thread at a time (the
    event loop) and never wait; :meth:`wait_idle` is for a worker thread only.
    """

    def __init__(self, cap: float = LOAD_WAIT_CAP, settle: float = LOAD_SETTLE) -> None:
        """``cap``: the longest a load's waits take together; ``settle``: the pause
        before a background load begins."""
        self._in_flight = 0
        self._idle = threading.Event()
        self._idle.set()
        self.cap = cap
        self.settle = settle

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def enter(self) -> None:
        self._in_flight += 1
        self._idle.clear()

    def leave(self) -> None:
        if self._in_flight <= 0:  # a leave without its enter is a caller bug
            raise RuntimeError("TurnGate.leave() without a matching enter()")
        self._in_flight -= 1
        if self._in_flight == 0:
            self._idle.set()

    @contextmanager
    def turn(self) -> Iterator[None]:
        """One turn in flight for the ``with`` body; left on return, error or cancellation
        (wraps an ``await`` on the event loop: entering and leaving never block it)."""
        self.enter()
        try:
            yield
        finally:
            self.leave()

    def budget(self, cap: float | None = None) -> Callable[[], bool]:
        """A :meth:`wait_idle` for a load of several steps, sharing one cap: the load waits
        before each GIL-heavy step, and ``cap`` (default :attr:`cap`) bounds all the waits
        together, not each."""
        deadline = time.monotonic() + (self.cap if cap is None else cap)

        def wait() -> bool:
            return self.wait_idle(max(0.0, deadline - time.monotonic()))

        return wait

    def wait_idle(self, cap: float | None = None) -> bool:
        """Block the calling (non-loop) thread until no turn is in flight, or ``cap``
        seconds (default :attr:`cap`) have passed; ``True`` if it got an idle moment,
        ``False`` if the cap ran out."""
        return self._idle.wait(self.cap if cap is None else cap)
