"""Store ports for tests: ``MemoryStore`` in memory, ``real_store`` over real files.

:func:`real_store` is the Store actor every runtime and facade runs, in an actor system of
its own, for domain tests that want real files (fsync, locks, quarantine) without a whole
runtime.  ``MemoryStore`` is the in-memory :class:`~persona_mind.storage.port.StorePort`
for unit tests:
It keeps the contract of the real engine where a unit test can observe it: snapshots are
encoded and decoded through the same canonical codec (so a wrong entry type fails here as
it would on disk), the fingerprint is the SHA-256 of those bytes (equal to what
``FileStore`` would report), the sequence bumps per write, a stale ``generation`` raises
``StaleGeneration`` inside the mutation step, a stale ``expect_fingerprint`` raises
``CasConflict``, and a mutation that raises writes nothing. No files, no locks, no threads.

It has the Store client's shape (:class:`~persona_mind.actors.store.StoreBase`): it writes
the four primitives, and ``mutate`` and ``read_many`` are the base's, the same bodies the
client runs.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from persona_mind.actors import ActorSystem
from persona_mind.actors.store import StoreBase, StoreClient, spawn_store
from persona_mind.errors import StaleGeneration
from persona_mind.storage._codec import (
    ABSENT_FINGERPRINT,
    decode_snapshot,
    encode_snapshot,
    fingerprint,
)
from persona_mind.storage._errors import CasConflict
from persona_mind.storage._stored import Stored
from persona_mind.storage.port import Mutation, Snapshot, StoreTarget

if TYPE_CHECKING:
    from persona_mind.clock import Clock

__all__ = ("MemoryStore", "real_store")

E = TypeVar("E")


class MemoryStore(StoreBase):
    """In-memory StorePort fake (see module doc).

    ``generation``: the current owner generation (``None`` disables the check).
    ``wall``: time source for ``updatedAt`` (pass a ManualClock's ``wall``).
    """

    def __init__(
        self, *, generation: int | None = None, wall: Callable[[], float] = time.time
    ) -> None:
        self.generation = generation
        self.wall = wall
        self.files: dict[Path, bytes] = {}
        self.writes = 0
        self.reads = 0
        self._fail_next: list[BaseException] = []

    # --- StorePort -----------------------------------------------------------------

    async def read(self, target: StoreTarget[E]) -> Snapshot[E] | None:
        self.reads += 1
        self._maybe_fail()
        return self._decode(target)

    async def read_stored(self, target: StoreTarget[E]) -> Stored[E] | None:
        """Like ``StoreClient.read_stored``: the snapshot with its raw-byte fingerprint."""
        snapshot = await self.read(target)
        data = self.files.get(target.path)
        return None if snapshot is None or data is None else Stored(snapshot, data)

    async def mutate_stored(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
        purpose: str = "mutation",
    ) -> Stored[E]:
        self._maybe_fail()
        current = self._decode(target)
        actual = self.fingerprint(target)
        if expect_fingerprint is not None and expect_fingerprint != actual:
            raise CasConflict(target.path, expect_fingerprint, None if current is None else actual)
        self._check_generation(generation)
        old = () if current is None else current.entries
        new = tuple(mutation(old))
        self._check_generation(generation)
        if current is not None and new == old:
            return Stored(current, self.files[target.path])
        snapshot: Snapshot[E] = Snapshot(
            version=target.version,
            sequence=1 if current is None else current.sequence + 1,
            updatedAt=time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(self.wall())),
            entries=new,
        )
        data = encode_snapshot(snapshot)
        decode_snapshot(target.path, data, target.entry_type, target.version)  # round-trip
        self.files[target.path] = data
        self.writes += 1
        return Stored(snapshot, data)

    async def transact(
        self,
        steps: Sequence[tuple[StoreTarget[Any], Mutation[Any]]],
        *,
        generation: int | None = None,
        purpose: str = "memory transaction",
    ) -> list[Stored[Any]]:
        """Like ``StoreClient.transact``: steps in order, each committed before the next."""
        return [
            await self.mutate_stored(target, mutation, generation=generation)
            for target, mutation in steps
        ]

    # --- test helpers --------------------------------------------------------------

    def fingerprint(self, target: StoreTarget[Any]) -> str:
        """The raw-byte fingerprint of the stored bytes (``ABSENT_FINGERPRINT`` if none)."""
        data = self.files.get(target.path)
        return ABSENT_FINGERPRINT if data is None else fingerprint(data)

    def put_raw(self, path: Path, data: bytes) -> None:
        """Store exact bytes (e.g. a corrupt file: the next read raises CorruptStore)."""
        self.files[path] = data

    def fail_next(self, error: BaseException) -> None:
        """Make the next read or mutate raise ``error`` (queued, one each)."""
        self._fail_next.append(error)

    def _maybe_fail(self) -> None:
        if self._fail_next:
            raise self._fail_next.pop(0)

    def _check_generation(self, generation: int | None) -> None:
        if generation is not None and self.generation is not None and generation < self.generation:
            raise StaleGeneration("store", generation, self.generation)

    def _decode(self, target: StoreTarget[E]) -> Snapshot[E] | None:
        data = self.files.get(target.path)
        if data is None:
            return None
        return decode_snapshot(target.path, data, target.entry_type, target.version)


@asynccontextmanager
async def real_store(agent_dir: Path, *, clock: Clock | None = None) -> AsyncIterator[StoreClient]:
    """The Store actor on ``agent_dir`` (its own actor system, stopped on exit)."""
    async with ActorSystem(clock=clock) as system:
        yield spawn_store(system, agent_dir)
