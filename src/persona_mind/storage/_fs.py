"""The FileSystem seam: the ONLY module that calls ``os.*`` on state files and lock files.

Why a seam: crash and fault tests (``persona_mind.testing.FaultyFileSystem``) replace it
to fail the k-th call with ENOSPC/EIO or to drop unsynced writes at a simulated power
loss, without a single test hook in the protocol itself. Every method is one syscall-level
step so a fault can land between any two of them.
"""

from __future__ import annotations

import errno as _errno
import os
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Protocol

__all__ = (
    "FileIdentity",
    "FileSystem",
    "OsFileSystem",
    "ReadResult",
    "describe_mode",
    "identity_of",
)


def _portalocker() -> ModuleType:
    """portalocker, imported at the first lock: its import costs ~30 ms (a package-version
    lookup), which a runtime should not pay before it has any file to lock."""
    import portalocker  # noqa: PLC0415 - see the docstring

    return portalocker


_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
# M-STORE / issue 15 item 1: opening a FIFO for reading blocks until a writer appears (and a
# device may block forever), so every open of a state or lock file is non-blocking and is
# followed by an ``fstat`` that refuses anything but a regular file before a byte is read.
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


@dataclass(frozen=True, slots=True)
class FileIdentity:
    """Which file, in which state: equal identities mean the bytes were not replaced.

    Every write of the engine makes a new inode (temp + rename), so a write by any other
    process changes ``ino``; an in-place edit changes ``size`` or the timestamps.
    """

    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int


def identity_of(st: os.stat_result) -> FileIdentity:
    """The :class:`FileIdentity` of a ``stat``/``fstat`` result."""
    return FileIdentity(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass(frozen=True, slots=True)
class ReadResult:
    """Bytes of a regular file, or ``data=None`` when its size exceeded the cap (``size``).

    ``identity`` is the file's identity at the read; ``unchanged`` is true when it equalled
    the ``known`` identity the caller passed, in which case nothing was read (``data=None``).
    """

    data: bytes | None
    size: int
    identity: FileIdentity | None = None
    unchanged: bool = False


def describe_mode(mode: int) -> str:
    """What a non-regular entry is, in words ("a socket", "a FIFO", ...)."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device or other special file"


def _not_a_file(mode: int, path: Path) -> IsADirectoryError:
    what = describe_mode(mode)
    return IsADirectoryError(_errno.EISDIR, f"state path is {what}, not a regular file", str(path))


def _refuse_special(st: os.stat_result, path: Path) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise _not_a_file(st.st_mode, path)


def _classify_first(path: Path) -> os.stat_result | None:
    """``lstat`` a state path *before* anything opens it (issue 24, M1).

    Opening a socket fails with ``ENXIO``, a FIFO or a device may block or act (a tape
    rewinds, a terminal becomes the controlling one), and a symlink would be followed: so
    whatever is not a regular file is refused here, by its type, without an ``open``. The
    open that follows still uses ``O_NOFOLLOW|O_NONBLOCK`` and ``fstat`` for the race with
    a replacement in between. ``None`` when nothing is there.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    _refuse_special(st, path)
    return st


def _opened(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open`` of a state path classified just before; an entry swapped in since for a
    socket (``ENXIO``) or a symlink (``ELOOP``) is refused as not a regular file."""
    try:
        return os.open(path, flags, mode)
    except OSError as exc:
        if exc.errno == _errno.ELOOP:
            raise IsADirectoryError(_errno.ELOOP, "state file is a symlink", str(path)) from exc
        if exc.errno in (_errno.ENXIO, _errno.EOPNOTSUPP):
            raise IsADirectoryError(
                exc.errno, "state path is a socket or device, not a regular file", str(path)
            ) from exc
        raise


class FileSystem(Protocol):
    """The syscalls the storage engine needs, one step each."""

    def open_new(self, path: Path) -> int:
        """Create ``path`` exclusively for writing (never follows a symlink)."""
        ...

    def write(self, fd: int, data: memoryview) -> int:
        """Write some of ``data``; return how many bytes were written."""
        ...

    def fsync(self, fd: int) -> None:
        """Flush a file's data to stable storage (``F_FULLFSYNC`` on macOS)."""
        ...

    def close(self, fd: int) -> None: ...

    def replace(self, src: Path, dst: Path) -> None:
        """Atomically rename ``src`` over ``dst`` (files or directories)."""
        ...

    def link(self, src: Path, dst: Path) -> None:
        """Hard-link ``src`` as ``dst`` (the standard backup of the previous version)."""
        ...

    def fsync_dir(self, path: Path) -> None:
        """Make the directory's entries durable (best effort, a no-op on Windows)."""
        ...

    def unlink(self, path: Path) -> None: ...

    def mkdir(self, path: Path) -> None: ...

    def rmtree(self, path: Path) -> None:
        """Remove a directory tree that the engine owns (a staged or retired pack)."""
        ...

    def read_capped(
        self, path: Path, cap: int, known: FileIdentity | None = None
    ) -> ReadResult | None:
        """Read a regular file whole unless it is larger than ``cap``; ``None`` if missing.

        Never blocks: the open is non-blocking and anything but a regular file (a symlink,
        directory, FIFO, socket or device) raises ``IsADirectoryError`` before any read.
        When the file's identity equals ``known`` nothing is read (``unchanged=True``).
        """
        ...

    def lstat(self, path: Path) -> os.stat_result | None:
        """``lstat`` or ``None`` when the path does not exist."""
        ...

    def listdir(self, path: Path) -> list[str]:
        """Entry names; empty when the directory does not exist."""
        ...

    def open_lock(self, path: Path) -> int:
        """Open (creating) a lock file read-write WITHOUT truncating it."""
        ...

    def try_lock(self, fd: int) -> bool:
        """Take the exclusive OS lock without waiting; ``False`` if it is held."""
        ...

    def lock_blocking(self, fd: int) -> None:
        """Wait for the exclusive OS lock (called from a helper thread)."""
        ...

    def unlock(self, fd: int) -> None: ...

    def write_record(self, fd: int, data: bytes) -> None:
        """Overwrite a held lock file's owner record in place from offset 0 (only the holder
        writes it; the caller pads records to a fixed size so no stale tail survives)."""
        ...

    def read_record(self, path: Path, cap: int) -> bytes:
        """Read a lock file's owner record (advisory locks do not block readers)."""
        ...

    def same_file(self, fd: int, path: Path) -> bool:
        """Whether ``fd`` is still the file named ``path`` (not deleted or replaced)."""
        ...


class OsFileSystem:
    """The real file system."""

    def open_new(self, path: Path) -> int:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC | _O_NOFOLLOW | _O_BINARY
        return os.open(path, flags, 0o644)

    def write(self, fd: int, data: memoryview) -> int:
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        if sys.platform == "darwin":  # plain fsync does not flush the drive cache there
            import fcntl  # noqa: PLC0415 - POSIX-only module

            fcntl.fcntl(fd, fcntl.F_FULLFSYNC)
        else:
            os.fsync(fd)

    def close(self, fd: int) -> None:
        os.close(fd)

    def replace(self, src: Path, dst: Path) -> None:
        os.replace(src, dst)

    def link(self, src: Path, dst: Path) -> None:
        os.link(src, dst, follow_symlinks=False)

    def fsync_dir(self, path: Path) -> None:
        if os.name == "nt":  # M-STORE-9: best effort; Windows cannot open a directory for fsync
            return
        fd = os.open(path, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def unlink(self, path: Path) -> None:
        os.unlink(path)

    def mkdir(self, path: Path) -> None:
        os.mkdir(path, 0o755)

    def rmtree(self, path: Path) -> None:
        shutil.rmtree(path)

    def read_capped(
        self, path: Path, cap: int, known: FileIdentity | None = None
    ) -> ReadResult | None:
        first = _classify_first(path)
        if first is None:
            return None
        if known is not None and identity_of(first) == known:
            # our own bytes, by the lstat alone: a regular file whose inode, size and
            # timestamps are unchanged (no open, fstat or close needed)
            return ReadResult(None, first.st_size, known, unchanged=True)
        try:
            fd = _opened(path, os.O_RDONLY | _O_CLOEXEC | _O_NOFOLLOW | _O_BINARY | _O_NONBLOCK)
        except FileNotFoundError:
            return None
        try:
            st = os.fstat(fd)
            _refuse_special(st, path)
            ident = identity_of(st)
            if known is not None and ident == known:  # our own bytes: nothing to read
                return ReadResult(None, st.st_size, ident, unchanged=True)
            if st.st_size > cap:  # refused by fstat before reading a byte
                return ReadResult(None, st.st_size, ident)
            data = os.read(fd, st.st_size + 1)  # one call, one buffer: the common case
            if len(data) <= st.st_size:
                chunks = [data]
                total = len(data)
                while chunk := os.read(fd, min(1 << 20, cap + 1 - total)):
                    chunks.append(chunk)
                    total += len(chunk)
                    if total > cap:  # grew while we read it
                        return ReadResult(None, total)
                data = b"".join(chunks) if len(chunks) > 1 else data
            if len(data) > cap:
                return ReadResult(None, len(data))
            # a file that changed while we read it gets no identity: it is never cached
            return ReadResult(data, len(data), ident if len(data) == st.st_size else None)
        finally:
            os.close(fd)

    def lstat(self, path: Path) -> os.stat_result | None:
        try:
            return os.lstat(path)
        except FileNotFoundError:
            return None

    def listdir(self, path: Path) -> list[str]:
        try:
            return os.listdir(path)
        except FileNotFoundError:
            return []

    def open_lock(self, path: Path) -> int:
        _classify_first(path)
        flags = os.O_RDWR | os.O_CREAT | _O_CLOEXEC | _O_NOFOLLOW | _O_BINARY | _O_NONBLOCK
        fd = _opened(path, flags)
        try:
            _refuse_special(os.fstat(fd), path)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def try_lock(self, fd: int) -> bool:
        portalocker = _portalocker()
        try:
            portalocker.lock(
                fd, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING
            )
        except portalocker.exceptions.AlreadyLocked:
            return False
        return True

    def lock_blocking(self, fd: int) -> None:
        portalocker = _portalocker()
        portalocker.lock(fd, portalocker.LockFlags.EXCLUSIVE)

    def unlock(self, fd: int) -> None:
        _portalocker().unlock(fd)

    def write_record(self, fd: int, data: bytes) -> None:
        # overwrite in place, never truncate: ext4 treats truncate-then-write as a
        # replace-via-truncate and flushes on close (measured ~1 ms per acquisition)
        view = memoryview(data)
        if not hasattr(os, "pwrite"):  # Windows
            os.lseek(fd, 0, os.SEEK_SET)
            while view:
                view = view[os.write(fd, view) :]
            return
        offset = 0
        while view:
            written = os.pwrite(fd, view, offset)
            view = view[written:]
            offset += written

    def same_file(self, fd: int, path: Path) -> bool:
        try:
            named = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            return False
        held = os.fstat(fd)
        return (held.st_ino, held.st_dev) == (named.st_ino, named.st_dev)

    def read_record(self, path: Path, cap: int) -> bytes:
        if _classify_first(path) is None:
            raise FileNotFoundError(_errno.ENOENT, "no lock file", str(path))
        fd = _opened(path, os.O_RDONLY | _O_CLOEXEC | _O_NOFOLLOW | _O_BINARY | _O_NONBLOCK)
        try:
            _refuse_special(os.fstat(fd), path)
            return os.read(fd, cap)
        finally:
            os.close(fd)
