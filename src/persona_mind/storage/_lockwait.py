"""Waiting for a held lock file without a thread per wait and, on Linux, without polling.

A kernel ``flock`` has no timeout and no readiness notification, so the old wait parked a
*new thread* per blocked acquisition in a blocking ``flock``. On Linux the release itself
is observable: a holder releases by closing its descriptor (``FileLock.release``; a killed
holder's descriptors are closed by the kernel), and closing a file raises an inotify
``IN_CLOSE_*`` event on it. So the waiter, in its own thread:

1. adds an inotify watch on the lock file (close, attribute/link-count change, move, delete)
   through its thread's long-lived inotify instance (closing one costs an SRCU grace
   period, tens of milliseconds, so instances are reused),
2. retries the non-blocking lock — a release before the watch existed is caught here,
3. sleeps in ``poll`` on the inotify descriptor until an event or the deadline, and loops.

Every wake-up is caused by the kernel (a close of the lock file by anyone); there is no
periodic wake-up. Spurious events (a reader such as ``store holder`` closing the file)
only cost one failed ``try_lock``.

Where inotify is unavailable (not Linux, or the per-user inotify instance limit is
reached), :func:`open_release_watch` returns ``None`` and the caller falls back to
:func:`poll_for_lock`: the non-blocking lock retried, in the waiting thread, with a pause
that grows from 1 ms to 50 ms. Both waits run in the thread that asked for the lock (the
Store's IO thread); neither starts a thread. (The portable wait used to park a helper
thread per wait in a blocking ``flock``, which nobody could join: a holder that never
released left it blocked for the life of the process.)

This module makes no state-file IO: it only watches the lock file's inode for events, so
it sits outside the FileSystem seam (fault injection cannot make a watch lose data).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import select
import struct
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ("ReleaseWatch", "open_release_watch", "poll_for_lock")

_IN_ATTRIB = 0x00000004
_IN_CLOSE_WRITE = 0x00000008
_IN_CLOSE_NOWRITE = 0x00000010
_IN_DELETE_SELF = 0x00000400
_IN_MOVE_SELF = 0x00000800
_IN_DONT_FOLLOW = 0x02000000
_MASK = (
    _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_CLOSE_NOWRITE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_DONT_FOLLOW
)


def _load_libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:  # the process's own symbols first: find_library runs `ldconfig -p` in a child
        libc = ctypes.CDLL(None, use_errno=True)
        init = libc.inotify_init1
        add = libc.inotify_add_watch
    except (OSError, AttributeError):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
            init = libc.inotify_init1
            add = libc.inotify_add_watch
        except (OSError, AttributeError):
            return None
    init.argtypes = [ctypes.c_int]
    init.restype = ctypes.c_int
    add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    add.restype = ctypes.c_int
    return libc


_LIBC = _load_libc()


_IN_Q_OVERFLOW = 0x00004000
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (+ len bytes of name)


class _Watcher:
    """One inotify instance per thread, kept for the thread's life.

    Closing an inotify instance waits for an SRCU grace period in the kernel (measured: tens
    of milliseconds under load), so instances are never opened and closed per wait; a watch
    on a lock file is added once (re-adding the same inode returns the same watch).
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.poll = select.poll()
        self.poll.register(fd, select.POLLIN)

    def __del__(self) -> None:  # the thread ended
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def drain(self) -> set[int]:
        """Read every pending event; the watch descriptors they name (-1: overflow)."""
        seen: set[int] = set()
        while True:
            try:
                buf = os.read(self.fd, 64 * 1024)
            except BlockingIOError:
                return seen
            offset = 0
            while offset + _EVENT.size <= len(buf):
                wd, mask, _cookie, length = _EVENT.unpack_from(buf, offset)
                seen.add(-1 if mask & _IN_Q_OVERFLOW else wd)
                offset += _EVENT.size + length


_local = threading.local()


class ReleaseWatch:
    """A watch on one lock file through the calling thread's inotify instance."""

    def __init__(self, watcher: _Watcher, wd: int) -> None:
        self._watcher = watcher
        self._wd = wd

    def wait(self, timeout: float) -> bool:
        """Sleep until the lock file is closed/changed by anyone or ``timeout`` passes;
        ``True`` when such an event arrived (events of other lock files do not count)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._watcher.poll.poll(int(remaining * 1000 + 0.999)):
                return False
            seen = self._watcher.drain()
            if self._wd in seen or -1 in seen:
                return True

    def close(self) -> None:
        """Nothing to release: the thread's instance and the watch are reused."""


def open_release_watch(path: Path) -> ReleaseWatch | None:
    """A watch on ``path``, or ``None`` when the platform or the inotify limits say no.

    Events that arrived before this call are discarded, so the caller's next lock attempt
    and the watch together cover every release from now on.
    """
    if _LIBC is None:
        return None
    watcher: _Watcher | None = getattr(_local, "watcher", None)
    if watcher is None:
        fd = _LIBC.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            return None
        watcher = _local.watcher = _Watcher(fd)
    wd = _LIBC.inotify_add_watch(watcher.fd, os.fsencode(path), _MASK)
    if wd < 0:
        return None
    watcher.drain()
    return ReleaseWatch(watcher, wd)


POLL_FIRST = 0.001
POLL_MAX = 0.05
"""The fallback's pause between two attempts: from 1 ms, doubling, at most 50 ms (a hand-off
to a waiter costs at most that much more than with inotify)."""


def poll_for_lock(try_lock: Callable[[], bool], timeout: float) -> bool:
    """Retry ``try_lock`` until it succeeds (``True``) or ``timeout`` seconds pass (``False``).

    The portable wait where no release watch can be made; it sleeps in the calling thread,
    so a wait never outlives its caller and nothing is left to join."""
    deadline = time.monotonic() + timeout
    pause = POLL_FIRST
    while True:
        if try_lock():
            return True
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(pause, remaining))
        pause = min(pause * 2, POLL_MAX)
