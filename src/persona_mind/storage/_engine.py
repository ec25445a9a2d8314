"""``FileStore``: the synchronous engine behind the Store actor, the CLI and the tests.

It implements the StorePort semantics with blocking calls (the Store actor runs them on its
IO thread): strict reads that never write, and mutations that take the target's locks in
order, quarantine a corrupt file, compare fingerprints, check the owner generation inside
the locked step, and write through the atomic protocol.
"""

from __future__ import annotations

import stat
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar

from persona_mind.errors import StaleGeneration, StorageError
from persona_mind.storage._atomic import sweep_temps, write_atomic
from persona_mind.storage._codec import (
    ABSENT_FINGERPRINT,
    MAX_STORE_BYTES,
    decode_snapshot,
    encode_reusing,
)
from persona_mind.storage._errors import (
    CasConflict,
    CorruptStore,
    StoreIOError,
    WriteFailed,
)
from persona_mind.storage._fs import FileIdentity, FileSystem, OsFileSystem, identity_of
from persona_mind.storage._kinds import Catalog
from persona_mind.storage._lockplan import LockPlanner, lock_path
from persona_mind.storage._locks import DEFAULT_LOCK_TIMEOUT
from persona_mind.storage._marker import StoreQuarantined, quarantine_store, quarantined_error
from persona_mind.storage._paths import Layout
from persona_mind.storage._recover import RecoveryReport, recover
from persona_mind.storage._scan import ScanReport, scan
from persona_mind.storage._stored import Stored, utc
from persona_mind.storage.port import LockDomain, Mutation, Snapshot, StoreTarget

__all__ = ("FileStore", "RecoveryReport", "ScanReport", "Stored", "lock_path")

E = TypeVar("E")


class FileStore:
    """The durable store engine (synchronous; one instance per process is enough).

    ``current_generation`` returns the owner's current lifecycle generation (``None`` when
    nothing is tracked); a mutation admitted under an older generation is refused with
    :class:`persona_mind.errors.StaleGeneration` inside the locked step, before any write.
    """

    def __init__(
        self,
        layout: Layout | None = None,
        *,
        fs: FileSystem | None = None,
        wall: Callable[[], float] = time.time,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        current_generation: Callable[[], int | None] | None = None,
        backup: bool = True,
        max_bytes: int = MAX_STORE_BYTES,
    ) -> None:
        self.layout = layout
        self.fs: FileSystem = fs if fs is not None else OsFileSystem()
        self.wall = wall
        self.locks = LockPlanner(self.fs, layout, lock_timeout)
        self.current_generation = current_generation
        self.backup = backup
        self.max_bytes = max_bytes
        # path -> (file identity, its decode, entry type). The Store owns its files: while the
        # identity (dev, inode, size, mtime, ctime) is unchanged the bytes are the ones this
        # instance wrote or read, so they are neither re-read nor re-decoded (issue 10); any
        # write by another process makes a new inode and is always seen.
        self._cache: dict[Path, tuple[FileIdentity, Stored[Any], object]] = {}
        self._pending: dict[Path, bytes] = {}
        # Paths whose orphan temps this instance swept and whose every write since has been
        # acknowledged (so it left no temp). A crashed *other* process's temp is swept by
        # the first mutation of that file in each process (and by ``repair``); see
        # docs/storage.md "Performance".
        self._swept: set[Path] = set()

    # ----------------------------------------------------------------- reads (never write)

    def read(self, target: StoreTarget[E]) -> Snapshot[E] | None:
        """The snapshot, ``None`` if there is no file; :class:`CorruptStore` if it is bad."""
        stored = self.read_stored(target)
        return None if stored is None else stored.snapshot

    def read_stored(self, target: StoreTarget[E]) -> Stored[E] | None:
        """Like :meth:`read`, with the raw-byte fingerprint (for a later CAS)."""
        try:
            return self._load(target)[0]
        except OSError as exc:
            raise StoreIOError(target.path, "reading", exc) from exc

    def fingerprint(self, target: StoreTarget[Any]) -> str:
        """The current raw-byte fingerprint (``ABSENT_FINGERPRINT`` when there is no file)."""
        stored = self.read_stored(target)
        return ABSENT_FINGERPRINT if stored is None else stored.fingerprint

    def _load(self, target: StoreTarget[E]) -> tuple[Stored[E] | None, bytes | None]:
        """Read and decode ``target`` (bytes are ``None`` when the cached decode was used).

        Never blocks and never reads anything but a regular file; a store with an unresolved
        quarantine raises :class:`StoreQuarantined` instead of reading as absent.
        """
        path = target.path
        cached = self._cache.get(path)
        usable = (
            cached
            if cached is not None
            and cached[2] is target.entry_type
            and cached[1].snapshot.version == target.version
            else None
        )
        try:
            result = self.fs.read_capped(
                path, self.max_bytes, None if usable is None else usable[0]
            )
        except IsADirectoryError as exc:
            self._cache.pop(path, None)
            self._refuse_if_quarantined(path)
            raise CorruptStore(path, "not-a-file", str(exc.strerror)) from exc
        if result is not None and result.unchanged and usable is not None:
            return usable[1], None  # the bytes this instance wrote or read: already decoded
        self._cache.pop(path, None)
        # a changed identity: another process wrote, a quarantine moved the file, or a
        # repair restored it; the marker decides before the bytes do
        self._refuse_if_quarantined(path)
        if result is None:
            return None, None
        if result.data is None:
            raise CorruptStore(
                path, "oversized", f"{result.size} bytes > cap {self.max_bytes} bytes"
            )
        data = result.data
        snapshot = decode_snapshot(path, data, target.entry_type, target.version)
        stored = Stored(snapshot, data)
        if result.identity is not None:
            self._cache[path] = (result.identity, stored, target.entry_type)
        return stored, data

    def _refuse_if_quarantined(self, path: Path) -> None:
        problem = quarantined_error(self.fs, path)
        if problem is not None:
            raise problem

    # --------------------------------------------------------------------------- locks

    @property
    def lock_timeout(self) -> float:
        """How long a lock is waited for (default 30 s; DEC-9)."""
        return self.locks.timeout

    def lock_plan(self, target: StoreTarget[Any]) -> list[tuple[LockDomain, Path]]:
        """The locks a mutation of ``target`` takes, in order (M-STORE-13..16)."""
        return self.locks.plan(target)

    def hold(
        self, plan: Sequence[tuple[LockDomain, Path]], purpose: str
    ) -> AbstractContextManager[None]:
        """Hold the locks of ``plan`` in order (creating their directories durably)."""
        return self.locks.hold(plan, purpose)

    # ------------------------------------------------------------------------ mutation

    def check_generation(self, generation: int | None) -> None:
        """Refuse work admitted under a generation older than the current one."""
        if generation is None or self.current_generation is None:
            return
        current = self.current_generation()
        if current is not None and generation < current:
            raise StaleGeneration("store", generation, current)

    def mutate(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
        purpose: str = "mutation",
    ) -> Snapshot[E]:
        """Apply ``mutation`` durably and return the written (or unchanged) snapshot."""
        return self.mutate_stored(
            target,
            mutation,
            generation=generation,
            expect_fingerprint=expect_fingerprint,
            purpose=purpose,
        ).snapshot

    def mutate_stored(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
        purpose: str = "mutation",
    ) -> Stored[E]:
        """:meth:`mutate`, returning the fingerprint of the bytes now on disk."""
        self.check_generation(generation)  # cheap early refusal; re-checked under the lock
        try:
            with self.hold(self.lock_plan(target), purpose):
                return self.mutate_locked(
                    target, mutation, generation=generation, expect_fingerprint=expect_fingerprint
                )
        except WriteFailed:
            self._cache.pop(target.path, None)
            raise
        except OSError as exc:
            self._cache.pop(target.path, None)
            raise StoreIOError(target.path, "mutating", exc) from exc

    def transact(
        self,
        steps: Sequence[tuple[StoreTarget[Any], Mutation[Any]]],
        *,
        generation: int | None = None,
        purpose: str = "memory transaction",
    ) -> list[Stored[Any]]:
        """Several memory-store mutations as one decision under the profile-wide memory
        transaction lock (M-STORE-13, -14).

        Each step takes its store lock in turn (store locks never nest) and is durable when
        the next one starts. A failing step stops the transaction; earlier steps stay
        committed, so order them so an interruption duplicates rather than loses (seed:
        promotion writes LTM before removing STM). Every step re-checks ``generation``.
        """
        self.check_generation(generation)
        results: list[Stored[Any]] = []
        path = steps[0][0].path if steps else Path()
        try:
            with self.hold([("memory", self.locks.need_layout("memory").memory_lock)], purpose):
                for target, mutation in steps:
                    path = target.path
                    with self.hold([("store", lock_path(target.path))], purpose):
                        results.append(self.mutate_locked(target, mutation, generation=generation))
        except WriteFailed:
            self._cache.pop(path, None)
            raise
        except OSError as exc:
            self._cache.pop(path, None)
            raise StoreIOError(path, "mutating", exc) from exc
        return results

    def mutate_locked(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
    ) -> Stored[E]:
        """The mutation step; the caller already holds the target's store lock."""
        current = self.load_locked(target)
        prepared = self.prepare_locked(
            target,
            current,
            mutation,
            generation=generation,
            expect_fingerprint=expect_fingerprint,
        )
        if prepared is None:
            assert current is not None
            return current
        return self.commit_locked(target, prepared)

    def load_locked(self, target: StoreTarget[E]) -> Stored[E] | None:
        """Under the store lock: sweep orphan temps, then read (quarantining a bad file).

        The sweep (a ``listdir`` of the whole directory) runs unless this instance already
        swept this path and every write it made since was acknowledged: then the only
        possible orphan is one a crashed other process left, which the first mutation of
        the file in each process, and ``repair``, sweep.
        """
        if target.path not in self._swept:
            sweep_temps(self.fs, target.path)
        return self._load_or_quarantine(target)

    def prepare_locked(
        self,
        target: StoreTarget[E],
        current: Stored[E] | None,
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
    ) -> Stored[E] | None:
        """CAS, generation check and the pure mutation; the exact snapshot to write, or
        ``None`` when nothing changes. Nothing is written here."""
        path = target.path
        if expect_fingerprint is not None:  # hash only for a CAS (2 MiB costs ~1.5 ms)
            actual = ABSENT_FINGERPRINT if current is None else current.fingerprint
            if expect_fingerprint != actual:
                raise CasConflict(path, expect_fingerprint, None if current is None else actual)
        self.check_generation(generation)
        old = () if current is None else current.snapshot.entries
        new = tuple(mutation(old))
        entry_type = target.entry_type
        # one C-level pass over the types (2,000 entries: ~30 us); isinstance only on a miss
        if isinstance(entry_type, type) and not set(map(type, new)) <= {entry_type}:
            for entry in new:
                if not isinstance(entry, target.entry_type):
                    raise TypeError(
                        f"mutation of {path.name} returned a {type(entry).__name__}, "
                        f"expected {target.entry_type.__name__}; nothing was written"
                    )
        self.check_generation(generation)  # M-OPTIMIZE-HISTORY-18: inside the step
        if current is not None and new == old:
            return None
        snapshot: Snapshot[E] = Snapshot(
            version=target.version,
            sequence=1 if current is None else current.snapshot.sequence + 1,
            updatedAt=utc(self.wall()),
            entries=new,
        )
        data, pieces = encode_reusing(snapshot, None if current is None else current.pieces)
        if len(data) > self.max_bytes:
            raise StorageError(
                f"refusing to write {path}: {len(data)} bytes would exceed the "
                f"{self.max_bytes}-byte cap; remove entries first"
            )
        self._pending[path] = data
        return Stored(snapshot, data, pieces)

    def commit_locked(self, target: StoreTarget[E], prepared: Stored[E]) -> Stored[E]:
        """Durably write a prepared snapshot (acknowledged when this returns)."""
        path = target.path
        data = self._pending.pop(path)
        self._cache.pop(path, None)
        self._swept.discard(path)  # a failure below may leave a temp: sweep next time
        write_atomic(self.fs, path, data, backup=self.backup)
        # acknowledged: the directory fsync also made the sweep's unlinks durable
        self._swept.add(path)
        try:  # under the lock: what is at the path is what we wrote
            st = self.fs.lstat(path)
        except OSError:  # acknowledged already; only the cache is skipped
            st = None
        if st is not None and stat.S_ISREG(st.st_mode) and st.st_size == len(data):
            prepared.drop_bytes()
            self._cache[path] = (identity_of(st), prepared, target.entry_type)
        return prepared

    def _load_or_quarantine(self, target: StoreTarget[E]) -> Stored[E] | None:
        try:
            return self._load(target)[0]
        except StoreQuarantined:
            raise  # already moved aside; only a repair resolves it
        except CorruptStore as exc:
            self._cache.pop(target.path, None)
            self._swept.discard(target.path)  # quarantine writes temps beside it
            raise self._quarantine(exc) from exc

    def _quarantine(self, exc: CorruptStore) -> CorruptStore:
        return quarantine_store(self.fs, exc, max_bytes=self.max_bytes, wall=self.wall)

    # ------------------------------------------------------------------------ recovery

    def scan(self, root: Path, *, version: int = 1, catalog: Catalog | None = None) -> ScanReport:
        """Read-only health check of every state file under ``root``, each by its kind in
        ``catalog`` (see ``_scan.scan``)."""
        return scan(self, root, version=version, catalog=catalog)

    def repair(self, target: StoreTarget[Any]) -> CorruptStore | None:
        """Recover ``target`` (see :meth:`recover`); the problem found, or ``None`` when the
        store was healthy. Kept for the Store actor's ``Repair`` message."""
        return self.recover(target).problem

    def recover(self, target: StoreTarget[Any]) -> RecoveryReport:
        """Under the target's locks: sweep temps, quarantine a bad file, and when a
        quarantine is unresolved restore the freshest valid copy and name what is lost
        (``persona-mind store check --repair``; see ``_recover``)."""
        return recover(self, target)

    def forget(self, path: Path) -> None:
        """Drop what this instance cached about ``path`` (a repair changes it under us)."""
        self._cache.pop(path, None)
        self._swept.discard(path)
