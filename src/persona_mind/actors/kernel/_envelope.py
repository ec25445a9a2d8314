"""The runtime-only wrapper around a message in a mailbox.

Never serialised (the message inside may be): it carries what the kernel needs to route,
answer and trace a message — the reply future of an ask, the lifecycle generation the
sender was admitted under (``None`` for a send from outside every actor: admitted at
delivery), the generation the handler ended in (``settled``: an asker adopts a newer one,
so a caller that asked the Owner to start a new session goes on in it), whether it is the
actor's own bookkeeping (outcomes of its background work are never dropped as stale), and
(only while tracing) its id, correlation id and sender.
"""

from __future__ import annotations

import asyncio
from typing import Any

CONTROL = object()
"""The message of an envelope that wakes a cell's loop to read its halt flag (a stop, or a
linked dependency's exit); never delivered to an actor."""


class Envelope:
    """One queued message. ``__slots__`` keeps the hot path allocation small."""

    __slots__ = ("corr", "generation", "id", "message", "reply", "sender", "settled")

    bookkeeping = False
    """True only on :class:`OwnEnvelope` (a class attribute: free on the hot path)."""

    def __init__(
        self,
        message: object,
        generation: int | None,
        reply: asyncio.Future[Any] | None,
        msg_id: int | None = None,
        corr: str | None = None,
        sender: str | None = None,
    ) -> None:
        self.message = message
        self.generation = generation
        self.reply = reply
        self.id = msg_id
        self.corr = corr
        self.sender = sender
        self.settled: int | None = None


class OwnEnvelope(Envelope):
    """An actor's own bookkeeping (its work's outcome): never dropped as stale."""

    __slots__ = ()
    bookkeeping = True
