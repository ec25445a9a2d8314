"""A cell's trace lines and lifecycle probe (a component of the cell, not a base class).

Every send, delivery and drop of a traced runtime is one line keyed by the actor's name;
lifecycle steps (start, crash, restart, stop) set the event behind
``persona_mind.testing.wait_for_actor``. Nothing here runs per message unless tracing is on.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from persona_mind.actors.kernel import _context

if TYPE_CHECKING:
    from persona_mind.actors.kernel._envelope import Envelope
    from persona_mind.actors.kernel._system import ActorSystem
    from persona_mind.trace import EventKind

__all__ = ("CellTrace",)


class CellTrace:
    """Trace lines and the lifecycle probe of one actor."""

    __slots__ = ("_lifecycle", "name", "system", "tracer")

    def __init__(self, name: str, system: ActorSystem) -> None:
        self.name = name
        self.system = system
        self.tracer = system.tracer
        self._lifecycle: asyncio.Event | None = None

    def lifecycle_changed(self) -> asyncio.Event:
        """An event set at this actor's next lifecycle step (start, crash, restart, stop).

        The probe behind ``persona_mind.testing.wait_for_actor``: a test waits on the
        kernel's own state change instead of polling. Lifecycle steps only, never per
        message, so it costs the mailbox nothing."""
        if self._lifecycle is None:
            self._lifecycle = asyncio.Event()
        return self._lifecycle

    def step(self, ev: EventKind, reason: str | None) -> None:
        """A lifecycle step: wake the probe, and trace it when tracing."""
        if self._lifecycle is not None:
            self._lifecycle.set()
            self._lifecycle = None
        if self.tracer.enabled:
            self.tracer.emit(ev, self.name, reason=reason, gen=self.system.generation)

    def send(self, env: Envelope) -> None:
        current = _context.current.get()
        env.id = self.tracer.next_id()
        env.sender = current[0] if current is not None else None
        env.corr = (current[1] if current is not None else None) or f"c{env.id}"
        self._env("send", env)

    def deliver(self, env: Envelope) -> None:
        self._env("deliver", env)

    def drop(self, env: Envelope, reason: str) -> None:
        self._env("drop", env, reason)

    def _env(self, ev: EventKind, env: Envelope, reason: str | None = None) -> None:
        gen = env.generation
        self.tracer.emit(
            ev,
            self.name,
            sender=env.sender,
            type_=type(env.message).__name__,
            msg_id=env.id,
            corr=env.corr,
            gen=self.system.generation if gen is None else gen,
            reason=reason,
        )
