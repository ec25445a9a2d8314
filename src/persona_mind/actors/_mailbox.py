"""An unbounded FIFO mailbox with a single consumer.

Why not ``asyncio.Queue``: the actor loop is the only consumer, so a deque plus one
waiter future does the same job with less bookkeeping, which is most of an ask's cost.
``put`` never blocks (``tell`` is synchronous); FIFO order per sender→receiver pair
follows from FIFO order overall.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import NamedTuple

from persona_mind.actors._envelope import Envelope


class MailboxStatistics(NamedTuple):
    """A snapshot of a mailbox for diagnostics."""

    queued: int
    delivered: int


class Mailbox:
    """Single-consumer FIFO of envelopes."""

    __slots__ = ("_delivered", "_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[Envelope] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._delivered = 0

    def put(self, envelope: Envelope) -> None:
        """Append without blocking and wake the consumer if it waits."""
        self._items.append(envelope)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def get_nowait(self) -> Envelope | None:
        """The next envelope if one is queued (no coroutine: the hot path of a busy actor)."""
        if self._items:
            self._delivered += 1
            return self._items.popleft()
        return None

    async def get(self) -> Envelope:
        """The next envelope, waiting if the mailbox is empty."""
        while not self._items:
            waiter = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                self._waiter = None
        self._delivered += 1
        return self._items.popleft()

    def drain(self) -> list[Envelope]:
        """Remove and return everything queued (used on stop, crash and restart)."""
        items = list(self._items)
        self._items.clear()
        return items

    def __len__(self) -> int:
        return len(self._items)

    def statistics(self) -> MailboxStatistics:
        return MailboxStatistics(queued=len(self._items), delivered=self._delivered)
