"""Test helpers shipped with persona-mind, for its own tests and for users testing packs.

* :class:`ManualClock` — virtual time; ``advance()`` fires timers in order.
* :class:`TestProbe` — a recording actor with ``expect()``.
"""

from __future__ import annotations

from persona_mind.testing._clock import ManualClock as ManualClock
from persona_mind.testing._probe import TestProbe as TestProbe

__all__ = ("ManualClock", "TestProbe")
