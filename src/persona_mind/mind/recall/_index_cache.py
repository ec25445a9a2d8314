"""The live-fact index of each fact store, cached, built off the loop and freed piecewise.

Why a module of its own: an index's lifecycle — rebuilt only when its snapshot or the next
expiry changes, one build per store at a time that outlives a caller cut off by the 750 ms
deadline, old indexes and token caches taken apart on the offload thread — is a concern of
its own, separate from what :class:`~persona_mind.mind.MemoryService` reads and writes
(issue 15, item 9).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol, TypeVar

from persona_mind.mind._model import Fact
from persona_mind.mind.recall._retrieval import FactIndex, TokenCache, retire
from persona_mind.storage.port import Snapshot

__all__ = ("IndexCache", "Offload")

log = logging.getLogger(__name__)

T = TypeVar("T")


class Offload(Protocol):
    """Runs blocking work away from the event loop (the runtime's IO thread); injected."""

    def __call__(self, fn: Callable[[], T], /) -> Awaitable[T]: ...


_IndexEntry = tuple[tuple[int, str], float, FactIndex]
"""(snapshot key, next expiry, index): an index is reused while both hold."""


class IndexCache:
    """Each fact store's index (by store path), for one :class:`MemoryService`."""

    def __init__(self, offload: Offload | None) -> None:
        self._offload = offload
        self._indexes: dict[Path, _IndexEntry] = {}
        self._tokens: dict[Path, TokenCache] = {}
        self._building: dict[Path, asyncio.Future[FactIndex]] = {}
        self._retiring: set[asyncio.Future[None]] = set()
        self._closed = False

    async def index(self, path: Path, snap: Snapshot[Fact] | None, now: float) -> FactIndex:
        """The store's live-fact index, rebuilt only when the snapshot or an expiry changes.

        A build (the first one on a 16 MiB store takes about a second) runs through the
        injected ``offload`` as a task of its own: one per store at a time (it owns the token
        cache), and a caller cancelled by the 750 ms deadline leaves it running, so its
        result is cached for the next turn instead of being thrown away (issue 15, item 9).
        """
        key = (0, "") if snap is None else (snap.sequence, snap.updatedAt)
        while True:
            cached = self._indexes.get(path)
            if cached is not None and cached[0] == key and now < cached[1]:
                return cached[2]
            building = self._building.get(path)
            if building is None:
                break
            cached = None  # never hold an index across an await: it may be retired meanwhile
            with contextlib.suppress(Exception):  # its failure is re-met by our own build
                await asyncio.shield(building)
        rows = () if snap is None else snap.entries
        build = asyncio.ensure_future(self._build(path, key, rows, now, cached))
        cached = None
        self._building[path] = build

        def forget(done: asyncio.Future[FactIndex]) -> None:
            if self._building.get(path) is done:
                del self._building[path]
            if not done.cancelled():
                done.exception()  # marked retrieved: a caller that left is past caring

        build.add_done_callback(forget)
        return await asyncio.shield(build)

    async def _build(
        self,
        path: Path,
        key: tuple[int, str],
        rows: tuple[Fact, ...],
        now: float,
        cached: _IndexEntry | None,
    ) -> FactIndex:
        tokens = self._tokens.setdefault(path, {})

        def work() -> _IndexEntry:
            index = cached[2].updated(rows, now, tokens) if cached is not None else None
            if index is None:
                index = FactIndex.build(rows, now, tokens)
            if len(tokens) > 2 * max(1, len(index)):  # forget rows that left the store
                for key_ in [k for k in tokens if k not in index.slot_of]:
                    del tokens[key_]
            live = (index.facts[i] for i in index.slot_of.values())
            next_expiry = min(
                (f.expiresAt for f in live if f.expiresAt is not None), default=float("inf")
            )
            return key, next_expiry, index

        try:
            entry = await self._offload(work) if self._offload is not None else work()
        finally:
            cached = None  # the closure's reference too: the old index goes to _retire only
        if self._closed:  # released while building: this index has no reader
            self._retire(entry[2])
            return entry[2]
        old = self._indexes.get(path)
        self._indexes[path] = entry
        if old is not None:
            self._retire(old[2])
        return entry[2]

    def _retire(self, index: FactIndex | None, *caches: TokenCache) -> None:
        """Free a replaced index on the offload thread, piecewise (issue 15 item 9).

        Dropping a 19,000-fact index frees ~2.8 M objects in one 290–380 ms GIL-holding
        step; :func:`retire` takes it apart in small steps on the thread that runs it.
        Without an offload (the one-shot CLI) the index is just dropped.
        """
        offload = self._offload
        if offload is None:
            return
        job = retire(index, *caches)
        del index, caches  # the job holds the last references now

        async def run() -> None:
            # started at the next loop iteration, when the caller's frame (and its
            # references to the old index) is gone
            await offload(job)

        task = asyncio.ensure_future(run())
        self._retiring.add(task)

        def done(t: asyncio.Future[None]) -> None:
            self._retiring.discard(t)
            if not t.cancelled() and (exc := t.exception()) is not None:
                log.warning("releasing an old index failed: %r", exc)

        task.add_done_callback(done)

    def release(self) -> None:
        """The service is being replaced (a session switch): free its indexes and token
        caches off the loop, as :meth:`_retire` does for one replaced index."""
        self._closed = True
        indexes = [entry[2] for entry in self._indexes.values()]
        caches = list(self._tokens.values())
        self._indexes, self._tokens = {}, {}
        self._retire(indexes.pop() if indexes else None, *caches)
        while indexes:
            self._retire(indexes.pop())
