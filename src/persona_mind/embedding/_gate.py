"""The turn gate: the model's load holds its one unsplittable GIL step until no turn runs.

``tokenizers.Tokenizer.from_file`` (inside ``WordLlama.load``) parses the tokenizer in one
Rust call of ~55–70 ms that never releases the GIL; landing inside a ``before_agent_start``
turn it stops the event loop for as long (issue 15 item 9; ``docs/bridge.md``, "The
remaining GIL stalls", item 3).  It cannot be split, so it is moved: the Mind feature
counts the turns in flight here, and the loading thread waits for zero before that call.

The event loop never blocks on this: it only increments and decrements a counter under a
lock that the waiting thread holds for a predicate check at a time (``Condition.wait``
releases it).  Only the loading thread waits, and at most :data:`LOAD_WAIT_CAP` seconds in
all, so a session that is never idle still gets its model.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ("LOAD_WAIT_CAP", "TurnGate")

LOAD_WAIT_CAP = 2.0
"""Seconds the loading thread waits, at most, for the turns in flight to end.  A turn's
budget is 750 ms, so this outlasts one or two back-to-back turns; after it the load goes
ahead anyway (a stall in a turn beats ranking lexically for the whole session)."""


class TurnGate:
    """Counts turns in flight (loop side) and lets a loading thread wait for none.

    Thread-safe; :meth:`turn` and :meth:`enter`/:meth:`leave` never wait beyond the
    lock's brief hand-over, :meth:`wait_idle` is for a worker thread only.
    """

    def __init__(self, cap: float = LOAD_WAIT_CAP) -> None:
        """``cap``: the longest :meth:`wait_idle` waits when not given its own."""
        self._cond = threading.Condition()
        self._in_flight = 0
        self.cap = cap

    @property
    def in_flight(self) -> int:
        with self._cond:
            return self._in_flight

    def enter(self) -> None:
        with self._cond:
            self._in_flight += 1

    def leave(self) -> None:
        with self._cond:
            if self._in_flight <= 0:  # a leave without its enter is a caller bug
                raise RuntimeError("TurnGate.leave() without a matching enter()")
            self._in_flight -= 1
            if self._in_flight == 0:
                self._cond.notify_all()

    @contextmanager
    def turn(self) -> Iterator[None]:
        """One turn in flight for the ``with`` body; left on return, error or cancellation
        (wraps an ``await`` on the event loop: entering and leaving never block it)."""
        self.enter()
        try:
            yield
        finally:
            self.leave()

    def wait_idle(self, cap: float | None = None) -> bool:
        """Block the calling (non-loop) thread until no turn is in flight, or ``cap``
        seconds (default :attr:`cap`) have passed; ``True`` if it got an idle moment,
        ``False`` if the cap ran out.
        """
        with self._cond:
            return self._cond.wait_for(
                lambda: self._in_flight == 0, timeout=self.cap if cap is None else cap
            )
