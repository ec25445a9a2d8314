"""The live-fact index of each fact store, cached, built off the loop and freed piecewise.

Why a module of its own: an index's lifecycle — rebuilt only when its snapshot or the next
expiry changes, one build per store at a time that outlives a caller cut off by the 750 ms
deadline, old indexes and token caches taken apart on the IO thread — is a concern of its
own, separate from what :class:`~persona_mind.mind.MemoryService` reads and writes.

It starts no task. With a job queue (:class:`IOJobs`: the runtime's Store, whose IO thread
is the process's one blocking executor) a build and a retirement are *Store jobs*: the
Store owns them from submission, the kernel settles their futures whether or not anyone
still waits, and what follows a build (caching it, retiring the index it replaces) runs in
a done callback on the loop. With a bare ``offload`` and no queue (unit tests) the build is
awaited by its caller and a caller cut off loses it; without either (the one-shot CLI) it
runs inline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from persona_mind.mind._model import Fact
from persona_mind.mind.recall._retrieval import FactIndex, TokenCache, retire
from persona_mind.storage.port import Snapshot

__all__ = ("IOJobs", "IndexCache", "Offload")

log = logging.getLogger(__name__)

T = TypeVar("T")


class Offload(Protocol):
    """Runs blocking work away from the event loop (the runtime's IO thread); injected."""

    def __call__(self, fn: Callable[[], T], /) -> Awaitable[T]: ...


@runtime_checkable
class IOJobs(Protocol):
    """A queue of blocking jobs that owns each job from submission (the Store's ``RunIO``):
    the returned future settles whether or not its submitter still waits."""

    def submit_io(self, work: Callable[[], T], purpose: str = ...) -> asyncio.Future[T]: ...


_IndexEntry = tuple[tuple[int, str], float, FactIndex]
"""(snapshot key, next expiry, index): an index is reused while both hold."""


def _key(snap: Snapshot[Fact] | None) -> tuple[int, str]:
    """What identifies a snapshot's content for the cache (an absent store: ``(0, "")``)."""
    return (0, "") if snap is None else (snap.sequence, snap.updatedAt)


def _fresh(entry: _IndexEntry, key: tuple[int, str], now: float) -> bool:
    """Whether a cached entry still answers: built from that snapshot, not yet expired."""
    return entry[0] == key and now < entry[1]


class IndexCache:
    """Each fact store's index (by store path), for one :class:`MemoryService`."""

    def __init__(self, offload: Offload | None, jobs: object | None = None) -> None:
        """Builds are jobs of ``jobs`` (the store) when it is an :class:`IOJobs`, else of
        ``offload`` when that is one; only when an ``offload`` is given (the runtime: off
        the loop). The CLI passes neither and builds inline."""
        self._offload = offload
        queues = (jobs, offload) if offload is not None else ()
        self._jobs: IOJobs | None = next((q for q in queues if isinstance(q, IOJobs)), None)
        self._indexes: dict[Path, _IndexEntry] = {}
        self._tokens: dict[Path, TokenCache] = {}
        self._building: dict[Path, asyncio.Future[FactIndex]] = {}
        self._closed = False

    def cached(self, path: Path, snap: Snapshot[Fact] | None, now: float) -> FactIndex | None:
        """What :meth:`index` returns at once — the cached index while its snapshot and
        expiry hold — else ``None`` (then ``await index(...)``).  Why: a turn asks every
        tier's index and nearly always finds it; a plain call costs less than a coroutine
        per tier."""
        cached = self._indexes.get(path)
        return cached[2] if cached is not None and _fresh(cached, _key(snap), now) else None

    async def index(self, path: Path, snap: Snapshot[Fact] | None, now: float) -> FactIndex:
        """The store's live-fact index, rebuilt only when the snapshot or an expiry changes.

        A build (the first one on a 16 MiB store takes about a second) is one Store job per
        store at a time (it owns the token cache); a caller cancelled by the 750 ms deadline
        leaves it running, and its result is cached for the next turn instead of being
        thrown away.
        """
        key = _key(snap)
        while True:
            cached = self._indexes.get(path)
            if cached is not None and _fresh(cached, key, now):
                return cached[2]
            building = self._building.get(path)
            if building is None:
                break
            cached = None  # never hold an index across an await: it may be retired meanwhile
            with contextlib.suppress(Exception):  # its failure is re-met by our own build
                await asyncio.shield(building)
        rows = () if snap is None else snap.entries
        work = self._build(path, key, rows, now, cached)
        cached = None  # the closure holds it now, and drops it when it has run
        if self._jobs is None:
            entry = await self._offload(work) if self._offload is not None else work()
            return self._install(path, entry)
        build: asyncio.Future[FactIndex] = asyncio.get_running_loop().create_future()
        self._building[path] = build

        def landed(job: asyncio.Future[_IndexEntry]) -> None:
            if self._building.get(path) is build:
                del self._building[path]
            if job.cancelled():
                build.cancel()
            elif (error := job.exception()) is not None:
                build.set_exception(error)
                build.exception()  # marked retrieved: a caller that left is past caring
            else:
                build.set_result(self._install(path, job.result()))

        self._jobs.submit_io(work, "build a fact index").add_done_callback(landed)
        return await asyncio.shield(build)

    def _build(
        self,
        path: Path,
        key: tuple[int, str],
        rows: tuple[Fact, ...],
        now: float,
        cached: _IndexEntry | None,
    ) -> Callable[[], _IndexEntry]:
        """The blocking build of one store's index (run on the IO thread)."""
        tokens = self._tokens.setdefault(path, {})
        held: list[_IndexEntry | None] = [cached]
        del cached

        def work() -> _IndexEntry:
            previous, held[0] = held[0], None  # the old index goes to _retire only
            index = previous[2].updated(rows, now, tokens) if previous is not None else None
            del previous
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

        return work

    def _install(self, path: Path, entry: _IndexEntry) -> FactIndex:
        """Cache a finished build and retire the index it replaces (on the loop)."""
        if self._closed:  # released while building: this index has no reader
            self._retire(entry[2])
            return entry[2]
        old = self._indexes.get(path)
        self._indexes[path] = entry
        if old is not None:
            self._retire(old[2])
        return entry[2]

    def _retire(self, index: FactIndex | None, *caches: TokenCache) -> None:
        """Free a replaced index on the IO thread, piecewise, as a Store job.

        Dropping a 19,000-fact index frees ~2.8 M objects in one 290–380 ms GIL-holding
        step; :func:`retire` takes it apart in small steps on the thread that runs it. The
        job is queued behind whatever the Store is doing, so it runs after the caller's
        frame (and its references to the old index) is gone. Without a job queue (the
        one-shot CLI, unit tests) the index is just dropped.
        """
        jobs = self._jobs
        if jobs is None:
            return
        job = retire(index, *caches)
        del index, caches  # the job holds the last references now
        jobs.submit_io(job, "retire a fact index").add_done_callback(_log_failure)

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


def _log_failure(done: asyncio.Future[Any]) -> None:
    if not done.cancelled() and (exc := done.exception()) is not None:
        log.warning("releasing an old index failed: %r", exc)
