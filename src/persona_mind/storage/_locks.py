"""Cross-process lock files with an owner record, a bounded blocking wait and lock order.

Why this shape:

* A kernel lock (``flock``, see ``OsFileSystem.try_lock``) on a sidecar ``*.lock`` file
  that is opened without truncation and **never deleted**: deleting a lock file splits
  waiters across two inodes (portalocker#115), and a kernel lock dies with its process, so
  kill -9 leaves only stale *metadata*, never a stale lock. Nothing is ever stolen for being old.
* The holder writes an owner record (pid, host, boot id, process start, since, purpose) for
  diagnostics only; a :class:`LockTimeout` names it.
* Waiting (default bound 30 s): one non-blocking attempt, then, on Linux, the caller's own
  thread sleeps on an inotify watch of the lock file and retries when anyone closes it — a
  holder releases by closing its descriptor, and the kernel closes a killed holder's — so
  there is no thread per wait and no 0.25 s polling (measured stalls up to 251 ms); see
  ``_lockwait``. Elsewhere (or past the inotify instance limit) the portable fallback
  retries the non-blocking lock in the same thread with a pause growing from 1 ms to 50 ms
  (``_lockwait.poll_for_lock``): no thread is started, so nothing outlives the wait.
* Lock order memory → history → store is checked in code before any IO: acquiring out of
  order, nesting two locks of one ordered domain, or nesting anything with an independent
  lock (backlog, packs) raises :class:`LockOrderError`. The held set is per thread: the Store
  actor does all its IO on one thread.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec

from persona_mind.storage._errors import LockOrderError, LockTimeout
from persona_mind.storage._fs import FileSystem
from persona_mind.storage._lockwait import open_release_watch, poll_for_lock
from persona_mind.storage.port import LockDomain

__all__ = ("DEFAULT_LOCK_TIMEOUT", "FileLock", "LockOwner", "held_locks", "locked")

DEFAULT_LOCK_TIMEOUT = 30.0
_RANK: dict[str, int] = {"memory": 0, "history": 1, "store": 2}
_INDEPENDENT = frozenset({"backlog", "packs"})
_RECORD_CAP = 4096
_FOLLOW_UPS = (0.001, 0.002, 0.004)
"""Retries after a close event whose lock was not free yet (see ``FileLock._wait``)."""
_held = threading.local()


class LockOwner(msgspec.Struct, frozen=True, kw_only=True):
    """The diagnostic record a lock holder writes into its lock file."""

    pid: int
    host: str
    boot: str
    started: str
    since: float
    purpose: str


def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as fh:
            return fh.read().strip()
    except OSError:
        return "unknown"


_starts: dict[int, str] = {}
RECORD_SIZE = 512
"""Owner records are padded with spaces to this size so an in-place overwrite leaves no tail."""


def _process_start() -> str:
    pid = os.getpid()
    found = _starts.get(pid)
    if found is None:
        found = _starts[pid] = _read_process_start(pid)
    return found


def _read_process_start(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return "unknown"


_BOOT = _boot_id()
_HOST = socket.gethostname()


def held_locks() -> tuple[tuple[LockDomain, Path], ...]:
    """The locks this thread holds, outermost first."""
    stack: list[tuple[LockDomain, Path]] = getattr(_held, "stack", [])
    return tuple(stack)


def _check_order(domain: LockDomain, path: Path) -> None:
    stack = held_locks()
    if not stack:
        return
    outer = ", ".join(f"{d}:{p.name}" for d, p in stack)
    if domain in _INDEPENDENT or any(d in _INDEPENDENT for d, _ in stack):
        raise LockOrderError(
            f"cannot take the {domain} lock {path.name} while holding {outer}: backlog and "
            "pack-store locks are independent and never nest with another lock"
        )
    top = max(_RANK[d] for d, _ in stack)
    if _RANK[domain] <= top:
        raise LockOrderError(
            f"cannot take the {domain} lock {path.name} while holding {outer}: the order is "
            "memory -> history -> store, one lock per domain"
        )


def _padded(record: LockOwner) -> bytes:
    data = msgspec.json.encode(record)
    if len(data) > RECORD_SIZE:
        data = msgspec.json.encode(msgspec.structs.replace(record, purpose=record.purpose[:64]))
    return data.ljust(RECORD_SIZE)


def describe_holder(fs: FileSystem, path: Path) -> str:
    """A human description of whoever wrote the owner record of ``path``."""
    try:
        raw = fs.read_record(path, _RECORD_CAP)
    except OSError as exc:
        return f"an unknown holder (owner record unreadable: {exc.strerror})"
    if not raw.strip():
        return "a holder that has not written its owner record"
    try:
        owner = msgspec.json.decode(raw, type=LockOwner)
    except msgspec.DecodeError:
        return f"a holder with a malformed owner record {raw[:80]!r}"
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(owner.since))
    return f"pid {owner.pid} on {owner.host} since {since} ({owner.purpose})"


class FileLock:
    """One exclusive lock file; use as a context manager or via :func:`locked`."""

    def __init__(
        self,
        fs: FileSystem,
        path: Path,
        domain: LockDomain,
        *,
        purpose: str = "mutation",
        timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        self._fs = fs
        self.path = path
        self.domain = domain
        self.purpose = purpose
        self.timeout = timeout
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock within ``timeout`` or raise :class:`LockTimeout` naming the holder."""
        _check_order(self.domain, self.path)
        deadline = time.monotonic() + self.timeout
        while True:
            fd = self._fs.open_lock(self.path)
            try:
                remaining = max(0.0, deadline - time.monotonic())
                got = self._fs.try_lock(fd) or self._wait(fd, remaining)
            except BaseException:
                self._fs.close(fd)
                raise
            if not got:  # _wait closed fd
                raise LockTimeout(self.path, self.timeout, describe_holder(self._fs, self.path))
            try:
                current = self._fs.same_file(fd, self.path)
            except BaseException:
                self._fs.close(fd)  # closing releases the kernel lock
                raise
            if current:
                break
            # someone deleted or replaced the lock file while we waited (portalocker#115):
            # a lock on an orphaned inode excludes nobody, so take the one at the path
            self._fs.close(fd)
        self._fd = fd
        record = LockOwner(
            pid=os.getpid(),
            host=_HOST,
            boot=_BOOT,
            started=_process_start(),
            since=time.time(),
            purpose=self.purpose,
        )
        # diagnostics only: a full disk must not turn a held lock into a failure
        with contextlib.suppress(OSError):
            self._fs.write_record(fd, _padded(record))
        stack: list[tuple[LockDomain, Path]] = getattr(_held, "stack", None) or []
        stack.append((self.domain, self.path))
        _held.stack = stack

    def _wait(self, fd: int, timeout: float) -> bool:
        """Wait for the lock within ``timeout``; on ``False`` ``fd`` is already closed."""
        watch = open_release_watch(self.path)
        if watch is None:
            return self._wait_by_polling(fd, timeout)
        deadline = time.monotonic() + timeout
        follow_ups: list[float] = []
        try:
            while True:
                # the watch exists before this attempt, so a release between the first
                # attempt and the watch is seen here, and any later one wakes the poll
                if self._fs.try_lock(fd):
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    with contextlib.suppress(OSError):
                        self._fs.close(fd)
                    return False
                # The kernel reports a close just *before* it drops that descriptor's lock
                # (fsnotify_close precedes locks_remove_file in __fput), so a holder that
                # exits or closes without unlocking may still hold it for an instant after
                # the event: retry a few times shortly after each event, never otherwise.
                step = follow_ups.pop(0) if follow_ups else remaining
                if watch.wait(min(step, remaining)):
                    follow_ups = list(_FOLLOW_UPS)
        finally:
            watch.close()

    def _wait_by_polling(self, fd: int, timeout: float) -> bool:
        """The portable fallback (``_lockwait.poll_for_lock``: no thread); on ``False`` ``fd``
        is already closed."""
        if poll_for_lock(lambda: self._fs.try_lock(fd), timeout):
            return True
        with contextlib.suppress(OSError):
            self._fs.close(fd)
        return False

    def release(self) -> None:
        """Release the lock; the lock file stays (it is never deleted)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        stack: list[tuple[LockDomain, Path]] = getattr(_held, "stack", [])
        if stack and stack[-1] == (self.domain, self.path):
            stack.pop()
        else:
            stack[:] = [e for e in stack if e != (self.domain, self.path)]
        # closing the descriptor releases the kernel lock even if unlock failed, so neither
        # error can leave the lock held; the mutation's outcome is already decided
        with contextlib.suppress(OSError):
            self._fs.unlock(fd)
        with contextlib.suppress(OSError):
            self._fs.close(fd)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


@contextmanager
def locked(
    fs: FileSystem,
    path: Path,
    domain: LockDomain,
    *,
    purpose: str = "mutation",
    timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> Iterator[FileLock]:
    """Hold one lock for the ``with`` body."""
    lock = FileLock(fs, path, domain, purpose=purpose, timeout=timeout)
    lock.acquire()
    try:
        yield lock
    finally:
        lock.release()
