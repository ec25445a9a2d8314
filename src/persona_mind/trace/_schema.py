"""The actor-trace record: one :class:`TraceEvent` per JSON line.

The kernel's writer encodes these and ``persona-mind trace`` decodes them with the same
type, so the file format has exactly one definition. Decoding is strict about types (a
string where a number belongs is an error, never coerced) but tolerates unknown fields,
so a newer writer's extra keys do not break an older reader; a reader that meets a
*higher* schema version ``v`` still reads the fields it knows.
"""

from __future__ import annotations

from typing import Any, Final, Literal, get_args

import msgspec

__all__ = ("EVENT_KINDS", "SCHEMA_VERSION", "EventKind", "TraceEvent")

SCHEMA_VERSION: Final = 1
"""The version this module writes in :attr:`TraceEvent.v`."""

EventKind = Literal[
    "send",
    "deliver",
    "drop",
    "reply",
    "start",
    "stop",
    "crash",
    "restart",
    "escalate",
    "child",
    "generation",
]
"""What happened; see ``docs/trace.md`` for when the kernel emits each kind."""

EVENT_KINDS: Final[tuple[str, ...]] = get_args(EventKind)
"""Every valid event kind, in the order the documentation lists them."""


class TraceEvent(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One thing that happened in the actor system, at one monotonic instant.

    ``omit_defaults`` keeps lines short: absent optional fields are simply not written.
    """

    v: int = 1
    """Schema version (:data:`SCHEMA_VERSION`)."""
    t: float
    """Monotonic seconds from the runtime clock's ``monotonic()``; only differences matter."""
    ev: EventKind
    """The event kind."""
    actor: str
    """The actor the event concerns (the receiver for send/deliver/drop)."""
    sender: str | None = None
    """The sending actor's name; ``None`` when sent from outside any actor (the host)."""
    type: str | None = None
    """The message type name."""
    id: int | None = None
    """The message id, unique per runtime; pairs a send with its deliver/drop/reply."""
    corr: str | None = None
    """Correlation id, propagated through asks/tells made while handling a message."""
    gen: int | None = None
    """The lifecycle generation the message was sent under."""
    reason: str | None = None
    """Drop reason (stale-generation, dead-actor, …) or crash/restart/stop reason."""
    detail: dict[str, Any] | None = None
    """Child-process events: pid, argv0, exit code, signal, phase."""
