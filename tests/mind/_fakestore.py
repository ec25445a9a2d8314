"""A tiny in-memory StorePort for Mind unit tests (with per-path failure injection).

It keeps the port's contract that matters to Mind: a mutation is a pure step over the
current rows; if it raises, nothing changes; each write bumps ``sequence``; reads never
write.  ``fail_next`` makes the next *write* of a path raise after the step ran, to prove
ordering (promotion writes LTM before removing STM). ``transact`` runs steps in order, each
committed before the next, like the real Store, and records each transaction's paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from persona_mind.errors import StaleGeneration, StorageError
from persona_mind.storage import decode_snapshot, encode_snapshot
from persona_mind.storage.port import Mutation, Snapshot, StoreTarget

E = TypeVar("E")


class FakeStore:
    def __init__(self) -> None:
        self.files: dict[Path, Snapshot[Any]] = {}
        self.writes: list[Path] = []
        self.reads = 0
        self.current_generation: int | None = None
        self.fail_next: set[Path] = set()
        self.transactions: list[tuple[Path, ...]] = []

    async def read(self, target: StoreTarget[E]) -> Snapshot[E] | None:
        self.reads += 1
        return self.files.get(target.path)

    async def mutate(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
    ) -> Snapshot[E]:
        if (
            generation is not None
            and self.current_generation is not None
            and generation != self.current_generation
        ):
            raise StaleGeneration("store", generation, self.current_generation)
        current = self.files.get(target.path)
        old: tuple[E, ...] = () if current is None else current.entries
        new = tuple(mutation(old))
        if current is not None and new == old:
            return current  # nothing to write (a check-only step never fails here)
        if target.path in self.fail_next:
            self.fail_next.discard(target.path)
            raise StorageError(f"injected failure writing {target.path}")
        snap: Snapshot[E] = Snapshot(
            version=target.version,
            sequence=1 if current is None else current.sequence + 1,
            updatedAt=f"2026-01-01T00:00:{len(self.writes) % 60:02d}.000Z",
            entries=new,
        )
        # round-trip through the real on-disk codec: a Mind struct that cannot be stored fails here
        snap = decode_snapshot(
            target.path, encode_snapshot(snap), target.entry_type, target.version
        )
        self.files[target.path] = snap
        self.writes.append(target.path)
        return snap

    async def transact(
        self,
        steps: Sequence[tuple[StoreTarget[Any], Mutation[Any]]],
        *,
        generation: int | None = None,
        purpose: str = "memory transaction",
    ) -> list[Snapshot[Any]]:
        self.transactions.append(tuple(t.path for t, _ in steps))
        return [await self.mutate(t, m, generation=generation) for t, m in steps]

    def rows(self, target: StoreTarget[E]) -> tuple[E, ...]:
        snap = self.files.get(target.path)
        return () if snap is None else snap.entries
