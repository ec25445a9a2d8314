"""``FaultyFileSystem``: fault injection and power-loss simulation over the storage seam.

Two failure models (notes/reliability.md):

* **I/O errors** (SQLite ``ioerr`` style): :meth:`FaultyFileSystem.fail_at` makes the k-th
  seam call raise ``OSError(ENOSPC | EIO | …)`` once (transient) or for every call from the
  k-th on (persistent). ``short_writes`` makes every write accept at most half its bytes.
* **Power loss** (SQLite ``test6.c`` style): with :meth:`track` on, file data counts as
  durable only after ``fsync(file)`` and directory entries only after ``fsync(dir)``.
  :meth:`crash_at` raises :class:`PowerLoss` at the k-th call (a ``BaseException``, so no
  ``except OSError`` in the engine can swallow it); :meth:`crash` then rewrites the tracked
  directories on disk as the power loss would leave them: unsynced directory operations are
  all lost (``drop``), all kept (``garble``: renames reached the disk before the data) or kept
  up to a random cut (``random``); each file whose data was never synced is dropped (empty),
  garbled (random bytes or NULs) or — by luck, in ``random`` — complete.
  ``skip_file_fsync`` / ``skip_dir_fsync`` turn one fsync into a no-op: the negative
  controls that prove the harness detects a missing fsync.

Model limits: only directories given to :meth:`track` are modelled; directories created
while tracking and lock files pass through as durable.
"""

from __future__ import annotations

import errno as _errno
import os
import random
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from persona_mind.storage._fs import FileIdentity, FileSystem, OsFileSystem, ReadResult

__all__ = ("FaultyFileSystem", "PowerLoss")

CrashMode = Literal["drop", "garble", "random"]


class PowerLoss(BaseException):
    """Raised at the simulated instant of a power loss; call ``crash()`` next."""


@dataclass(eq=False)
class _Inode:
    data: bytearray
    durable: bytes | None


@dataclass
class _Dir:
    durable: dict[str, _Inode]
    current: dict[str, _Inode]
    ops: list[tuple[str, _Inode | None]] = field(default_factory=list)


class FaultyFileSystem:
    """A :class:`~persona_mind.storage.FileSystem` that fails or loses power on request."""

    def __init__(self, inner: FileSystem | None = None, *, seed: int = 0) -> None:
        self.inner: FileSystem = inner if inner is not None else OsFileSystem()
        self.rng = random.Random(seed)  # noqa: S311 - a reproducible simulation, not crypto
        self.calls: list[str] = []
        self.short_writes = False
        self.skip_file_fsync = False
        self.skip_dir_fsync = False
        self._fail_at: int | None = None
        self._fail_errno = _errno.EIO
        self._persistent = False
        self._ops: frozenset[str] | None = None
        self._crash_at: int | None = None
        self.crashed = False
        self.failures = 0
        self.fsync_after_error = 0
        self._failed_fsync_fds: set[int] = set()
        self._dirs: dict[Path, _Dir] = {}
        self._fds: dict[int, _Inode] = {}

    # --------------------------------------------------------------- configuration

    def fail_at(
        self,
        k: int,
        errno: int = _errno.EIO,
        *,
        persistent: bool = False,
        ops: Iterable[str] | None = None,
    ) -> None:
        """Fail the k-th call from now (1-based), counting only ``ops`` when given."""
        self.calls.clear()
        self._fail_at = k
        self._fail_errno = errno
        self._persistent = persistent
        self._ops = frozenset(ops) if ops is not None else None

    def crash_at(self, k: int) -> None:
        """Raise :class:`PowerLoss` at the k-th call from now."""
        self.calls.clear()
        self._crash_at = k

    def clear(self) -> None:
        """Stop failing; keep tracking state."""
        self._fail_at = None
        self._crash_at = None
        self._persistent = False

    def _step(self, name: str) -> None:
        if self.crashed:
            return
        if self._ops is None or name in self._ops:
            self.calls.append(name)
        n = len(self.calls)
        if self._crash_at is not None and n >= self._crash_at:
            self.crashed = True
            raise PowerLoss(f"power lost at call {n} ({name})")
        counted = self._ops is None or name in self._ops
        if (
            self._fail_at is not None
            and counted
            and (n == self._fail_at or (self._persistent and n >= self._fail_at))
        ):
            self.failures += 1
            raise OSError(self._fail_errno, os.strerror(self._fail_errno), name)

    # ------------------------------------------------------------------ tracking

    def track(self, *directories: Path) -> None:
        """Model power loss for these directories; their current files count as durable."""
        self._dirs.clear()
        self._fds.clear()
        self.crashed = False
        for directory in directories:
            entries: dict[str, _Inode] = {}
            for name in self.inner.listdir(directory):
                st = self.inner.lstat(directory / name)
                if st is None or not _is_reg(st.st_mode) or name.endswith(".lock"):
                    continue
                res = self.inner.read_capped(directory / name, 1 << 30)
                data = b"" if res is None or res.data is None else res.data
                entries[name] = _Inode(bytearray(data), data)
            self._dirs[directory] = _Dir(durable=dict(entries), current=dict(entries))

    def _dir(self, path: Path) -> _Dir | None:
        return self._dirs.get(path.parent)

    def crash(self, mode: CrashMode = "random") -> list[str]:
        """Rewrite tracked directories as a power loss would leave them; return a log."""
        log: list[str] = []
        for directory, state in self._dirs.items():
            names = set(state.durable) | set(state.current)
            names |= {name for name, _ in state.ops}
            namespace = dict(state.durable)
            # drop: no unsynced directory operation survives; garble: all of them do (the
            # rename reached the disk before the data, ALICE class 1); random: a prefix does
            cut = {"drop": 0, "garble": len(state.ops)}.get(mode)
            if cut is None:
                cut = self.rng.randint(0, len(state.ops))
            for name, inode in state.ops[:cut]:
                if inode is None:
                    namespace.pop(name, None)
                else:
                    namespace[name] = inode
            log.append(f"{directory.name}: kept {cut}/{len(state.ops)} unsynced dir ops")
            for name in names:
                with_path = directory / name
                if self.inner.lstat(with_path) is not None:
                    self.inner.unlink(with_path)
            for name, inode in namespace.items():
                content = self._content(inode, mode)
                fd = self.inner.open_new(directory / name)
                try:
                    view = memoryview(content)
                    while view:
                        view = view[self.inner.write(fd, view) :]
                finally:
                    self.inner.close(fd)
                if inode.durable is None or bytes(inode.data) != inode.durable:
                    log.append(f"{name}: unsynced data -> {len(content)} bytes")
        self.track(*self._dirs)
        self.clear()
        return log

    def _content(self, inode: _Inode, mode: CrashMode) -> bytes:
        current = bytes(inode.data)
        if inode.durable is not None and inode.durable == current:
            return current
        choice = mode if mode != "random" else self.rng.choice(("drop", "garble", "keep"))
        if choice == "drop":
            return inode.durable or b""
        if choice == "garble":
            if self.rng.random() < 0.5:
                return b"\x00" * len(current)
            return bytes(self.rng.getrandbits(8) for _ in range(min(len(current), 4096)))
        return current

    # ------------------------------------------------------------- the seam calls

    def open_new(self, path: Path) -> int:
        self._step("open_new")
        fd = self.inner.open_new(path)
        state = self._dir(path)
        if state is not None and not self.crashed:
            inode = _Inode(bytearray(), None)
            self._fds[fd] = inode
            state.current[path.name] = inode
            state.ops.append((path.name, inode))
        return fd

    def write(self, fd: int, data: memoryview) -> int:
        self._step("write")
        if self.short_writes and len(data) > 1:
            data = data[: len(data) // 2]
        n = self.inner.write(fd, data)
        inode = self._fds.get(fd)
        if inode is not None:
            inode.data += data[:n]
        return n

    def fsync(self, fd: int) -> None:
        if fd in self._failed_fsync_fds:
            self.fsync_after_error += 1
        try:
            self._step("fsync")
        except OSError:
            self._failed_fsync_fds.add(fd)
            raise
        if self.skip_file_fsync:
            return
        self.inner.fsync(fd)
        inode = self._fds.get(fd)
        if inode is not None:
            inode.durable = bytes(inode.data)

    def close(self, fd: int) -> None:
        # like close(2): the descriptor is released even when an error is reported
        self._failed_fsync_fds.discard(fd)
        self._fds.pop(fd, None)
        try:
            self._step("close")
        finally:
            self.inner.close(fd)

    def replace(self, src: Path, dst: Path) -> None:
        self._step("replace")
        self.inner.replace(src, dst)
        self._move(src, dst, keep_source=False)

    def link(self, src: Path, dst: Path) -> None:
        self._step("link")
        self.inner.link(src, dst)
        self._move(src, dst, keep_source=True)

    def _move(self, src: Path, dst: Path, *, keep_source: bool) -> None:
        if self.crashed:
            return
        s_state, d_state = self._dir(src), self._dir(dst)
        inode = s_state.current.get(src.name) if s_state is not None else None
        if s_state is not None and not keep_source:
            s_state.current.pop(src.name, None)
            s_state.ops.append((src.name, None))
        if d_state is not None:
            if inode is None:
                res = self.inner.read_capped(dst, 1 << 30)
                data = b"" if res is None or res.data is None else res.data
                inode = _Inode(bytearray(data), data)
            d_state.current[dst.name] = inode
            d_state.ops.append((dst.name, inode))

    def fsync_dir(self, path: Path) -> None:
        self._step("fsync_dir")
        if self.skip_dir_fsync:
            return
        self.inner.fsync_dir(path)
        state = self._dirs.get(path)
        if state is not None and not self.crashed:
            state.durable = dict(state.current)
            state.ops.clear()

    def unlink(self, path: Path) -> None:
        self._step("unlink")
        self.inner.unlink(path)
        state = self._dir(path)
        if state is not None and not self.crashed:
            state.current.pop(path.name, None)
            state.ops.append((path.name, None))

    def mkdir(self, path: Path) -> None:
        self._step("mkdir")
        self.inner.mkdir(path)

    def rmtree(self, path: Path) -> None:
        self._step("rmtree")
        self.inner.rmtree(path)

    def read_capped(
        self, path: Path, cap: int, known: FileIdentity | None = None
    ) -> ReadResult | None:
        self._step("read")
        return self.inner.read_capped(path, cap, known)

    def lstat(self, path: Path) -> os.stat_result | None:
        self._step("lstat")
        return self.inner.lstat(path)

    def listdir(self, path: Path) -> list[str]:
        self._step("listdir")
        return self.inner.listdir(path)

    def open_lock(self, path: Path) -> int:
        self._step("open_lock")
        return self.inner.open_lock(path)

    def try_lock(self, fd: int) -> bool:
        self._step("try_lock")
        return self.inner.try_lock(fd)

    def lock_blocking(self, fd: int) -> None:
        self._step("lock_blocking")
        self.inner.lock_blocking(fd)

    def unlock(self, fd: int) -> None:
        self._step("unlock")
        self.inner.unlock(fd)

    def write_record(self, fd: int, data: bytes) -> None:
        self._step("write_record")
        self.inner.write_record(fd, data)

    def read_record(self, path: Path, cap: int) -> bytes:
        self._step("read_record")
        return self.inner.read_record(path, cap)

    def same_file(self, fd: int, path: Path) -> bool:
        self._step("same_file")
        return self.inner.same_file(fd, path)


def _is_reg(mode: int) -> bool:
    return stat.S_ISREG(mode)
