"""What the code running right now was admitted under: a generation, and (when tracing) a cause.

Two context variables carry the runtime's causality without any actor passing it by hand:

* ``admitted`` — the lifecycle generation the current code runs under. The kernel sets it
  before each ``receive`` to the generation stamped on the envelope; background work and
  timers copy it when they are started or armed, so what they send later still carries the
  generation their work was admitted under. Outside every actor (the host adapters, a
  test) it is ``None``: such sends are *unbound* and are admitted at delivery.
* ``current`` — (actor name, correlation id) of the message being handled, set only while
  tracing, so a trace can follow one request across actors.
"""

from __future__ import annotations

import contextvars

__all__ = ("admitted", "current")

admitted: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "persona_mind_admitted_generation", default=None
)
current: contextvars.ContextVar[tuple[str, str | None] | None] = contextvars.ContextVar(
    "persona_mind_current_actor", default=None
)
