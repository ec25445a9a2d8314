"""The trace writer: one JSON line per kernel event, when tracing is on.

Off by default. Every call site is guarded by ``if tracer.enabled`` so tracing off costs
one attribute read and a branch; ids and correlation ids are only computed when on.
The schema (``persona_mind.trace.TraceEvent``) and the reader/renderer live in
``persona_mind.trace``; ``docs/trace.md`` documents them.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from persona_mind.clock import Clock
    from persona_mind.trace import EventKind

__all__ = ("TRACE_ENV", "Tracer")

TRACE_ENV = "PERSONA_MIND_TRACE"


class Tracer:
    """Appends trace events to a file (line-buffered so a crash keeps what was written)."""

    def __init__(self, clock: Clock, path: Path | None = None) -> None:
        self._clock = clock
        self._file: IO[bytes] | None = None
        self._encoder = msgspec.json.Encoder()
        self._ids = itertools.count(1)
        self.enabled = False
        self.path = path
        self.generation: Callable[[], int] | None = None
        """The runtime's current generation, for lines that name none (set by the system)."""
        if path is not None:
            self._open(path)

    @classmethod
    def from_env(cls, clock: Clock, path: Path | None = None) -> Tracer:
        """A tracer writing to ``path``, else to ``$PERSONA_MIND_TRACE``, else disabled."""
        if path is None:
            env = os.environ.get(TRACE_ENV)
            path = Path(env) if env else None
        return cls(clock, path)

    def _open(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("wb", buffering=0)  # one file per run: ids restart at 1
        self.enabled = True

    def next_id(self) -> int:
        """A message id unique within this runtime."""
        return next(self._ids)

    def emit(
        self,
        ev: EventKind,
        actor: str,
        *,
        sender: str | None = None,
        type_: str | None = None,
        msg_id: int | None = None,
        corr: str | None = None,
        gen: int | None = None,
        reason: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        """Write one event line (callers check ``enabled`` first)."""
        from persona_mind.trace import TraceEvent  # noqa: PLC0415 - only paid when tracing

        if self._file is None:
            return
        if gen is None and self.generation is not None:
            gen = self.generation()
        event = TraceEvent(
            t=self._clock.monotonic(),
            ev=ev,
            actor=actor,
            sender=sender,
            type=type_,
            id=msg_id,
            corr=corr,
            gen=gen,
            reason=reason,
            detail=detail,
        )
        self._file.write(self._encoder.encode(event) + b"\n")

    def close(self) -> None:
        """Flush and close the file; later events are ignored."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self.enabled = False
