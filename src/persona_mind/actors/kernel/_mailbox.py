"""An unbounded FIFO mailbox with a single consumer.

Why not ``asyncio.Queue``: the actor loop is the only consumer, so a deque plus one
waiter future does the same job with less bookkeeping, which is most of an ask's cost.
``put`` never blocks (``tell`` is synchronous); FIFO order per sender→receiver pair
follows from FIFO order overall. Generic in what it carries: the actor cell's mailbox holds
envelopes, and the sidecar's event worker (``bridge/_work.py``) uses the same class for its
event requests.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class Mailbox(Generic[T]):
    """Single-consumer FIFO (of envelopes, for an actor)."""

    __slots__ = ("_waiter", "items")

    def __init__(self) -> None:
        self.items: deque[T] = deque()
        """The queue itself; the owning actor's loop pops from it directly when non-empty."""
        self._waiter: asyncio.Future[None] | None = None

    def put(self, item: T) -> None:
        """Append without blocking and wake the consumer if it waits."""
        self.items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def get(self) -> T:
        """The next item, waiting if the mailbox is empty (a cancelled wait takes nothing)."""
        while not self.items:
            waiter = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                self._waiter = None
        return self.items.popleft()

    def drain(self) -> list[T]:
        """Remove and return everything queued (used on stop, crash and restart)."""
        items = list(self.items)
        self.items.clear()
        return items

    def __len__(self) -> int:
        return len(self.items)
