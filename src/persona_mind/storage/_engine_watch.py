"""Reads answered without touching the disk while the kernel says nothing changed (issue 10).

Every turn's injection reads four tiers and the backlog. Through the Store that was one
hop to its IO thread per turn just to ``stat`` files that had not changed — and on a loaded
machine a thread hop costs far more than the ranking it feeds. :class:`FreshReads` lets the
Store actor answer such a read on the event loop instead, from the snapshot it last read,
for as long as an inotify watch on the file's directory (and on each directory up to the
store root) has reported no change there. Nothing here blocks: the loop only ever drains
the inotify descriptor with a non-blocking read; watches are added on the IO thread.

Why it is exact, not a heuristic:

* A snapshot is admitted only when its directory was watched *before* the read that
  produced it (``watch`` runs on the IO thread in the same hop, before the read) and no
  event for that directory was seen between the start of the hop and its end.
* A write by anyone — this process's engine, another process, an editor — is a rename,
  create, delete, write or attribute change in the file's directory; the kernel queues its
  event *during* that system call, so once a writer's ``rename`` has returned, the next
  drain (the first thing every lookup does) sees it and drops the snapshot.
* A directory on the way being moved, replaced or deleted (a restore, a ``dirswap``) drops
  every snapshot; so does a queue overflow.
* Only where events are complete: Linux, the default ``OsFileSystem``, and local file
  systems (ext4, xfs, btrfs, tmpfs, overlayfs, f2fs, zfs, bcachefs). On a network file
  system another host's writes raise no local event, so there every read takes the hop,
  as before. Anything unavailable (not Linux, the inotify limits) means the same.

This module makes no state-file IO of its own (it watches directories), so it sits outside
the ``FileSystem`` seam like ``_lockwait``.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import select
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from persona_mind.storage._lockwait import _LIBC
from persona_mind.storage.port import Snapshot, StoreTarget

__all__ = ("MISS", "FreshReads", "Ticket", "Watched")

MISS: Any = object()
""":meth:`FreshReads.lookup`'s answer for a target that must be read from disk."""

_IN_MODIFY = 0x00000002
_IN_ATTRIB = 0x00000004
_IN_CLOSE_WRITE = 0x00000008
_IN_MOVED_FROM = 0x00000040
_IN_MOVED_TO = 0x00000080
_IN_CREATE = 0x00000100
_IN_DELETE = 0x00000200
_IN_DELETE_SELF = 0x00000400
_IN_MOVE_SELF = 0x00000800
_IN_Q_OVERFLOW = 0x00004000
_IN_IGNORED = 0x00008000
_IN_ONLYDIR = 0x01000000
_IN_DONT_FOLLOW = 0x02000000
_IN_MASK_ADD = 0x20000000  # one watch per directory: a store's and a way-down role add up
_LEAF_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ONLYDIR
    | _IN_DONT_FOLLOW
    | _IN_MASK_ADD
)
"""A store's own directory: any change of any entry in it (temps, renames, markers)."""
_ANCESTOR_MASK = (
    _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ATTRIB
    | _IN_ONLYDIR
    | _IN_DONT_FOLLOW
    | _IN_MASK_ADD
)
"""A directory above it: an entry on the way to a store appearing, going or being replaced."""
_GONE = _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_IGNORED
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (+ len bytes of name)

# statfs(2) f_type of file systems whose every change raises a local inotify event
_LOCAL_FS = frozenset(
    {
        0xEF53,  # ext2/3/4
        0x58465342,  # xfs
        0x9123683E,  # btrfs
        0x01021994,  # tmpfs
        0x794C7630,  # overlayfs
        0xF2F52010,  # f2fs
        0x2FC12FC1,  # zfs
        0xCA451A4E,  # bcachefs
    }
)


def _local_fs(path: Path) -> bool:
    """Whether ``path`` (or, while missing, its nearest existing ancestor) is on a local
    file system (``statfs``'s ``f_type``, the first field of ``struct statfs``)."""
    if _LIBC is None:
        return False
    try:
        statfs = _LIBC.statfs
    except AttributeError:
        return False
    buf = ctypes.create_string_buffer(256)  # struct statfs is 120 bytes on 64-bit Linux
    while statfs(os.fsencode(path), buf) != 0:  # a store directory not created yet: its
        if ctypes.get_errno() != errno.ENOENT or path.parent == path:  # nearest existing
            return False
        path = path.parent
    f_type = ctypes.c_long.from_buffer(buf).value & 0xFFFFFFFF
    return f_type in _LOCAL_FS


@dataclass(frozen=True, slots=True)
class Ticket:
    """What the loop knew when a read hop started: each directory's event count."""

    counts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Watched:
    """Watches the IO thread added for one hop: (directory, watch descriptor, the child
    name on the way down for a directory above a store, ``None`` for a store's own)."""

    added: tuple[tuple[Path, int, str | None], ...]
    usable: tuple[bool, ...]


class FreshReads:
    """The Store's loop-side cache of snapshots the kernel vouches for (see module doc).

    Loop-only state except :meth:`watch`, which the IO thread calls and which touches only
    the inotify descriptor (thread-safe in the kernel) and returns what it did.
    """

    def __init__(self, root: Path | None) -> None:
        self._root = root if root is not None and root.is_absolute() else None
        self._fd = -1
        self._poll: select.poll | None = None
        if _LIBC is not None:
            self._fd = _LIBC.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd >= 0:
            self._poll = select.poll()
            self._poll.register(self._fd, select.POLLIN)
        self._dir_of: dict[int, tuple[Path, bool]] = {}  # wd -> (directory, is a leaf)
        self._names: dict[int, set[str]] = {}  # ancestor wd -> child names on the way
        self._events: dict[Path, int] = {}  # leaf directory -> events seen
        self._fresh: dict[Path, tuple[type[Any], int, Snapshot[Any] | None]] = {}
        self._local: dict[Path, bool] = {}  # leaf directory -> on a local file system
        self._failed = False  # reading the events failed: every read takes the hop

    @property
    def enabled(self) -> bool:
        return self._fd >= 0 and not self._failed

    def close(self) -> None:
        """Close the inotify instance (call off the loop: closing waits a kernel grace period)."""
        fd, self._fd = self._fd, -1
        self._fresh.clear()
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)

    def __del__(self) -> None:  # a crashed Store incarnation never ran its on_stop
        self.close()

    # -- on the loop --------------------------------------------------------------------
    def lookup(self, targets: Sequence[StoreTarget[Any]]) -> list[object]:
        """Each target's vouched-for snapshot, or :data:`MISS` (read it on the IO thread)."""
        if self._fd < 0 or not self._fresh:
            return [MISS] * len(targets)
        self._drain()
        if self._failed:
            return [MISS] * len(targets)
        out: list[object] = []
        for target in targets:
            hit = self._fresh.get(target.path)
            if hit is None or hit[0] is not target.entry_type or hit[1] != target.version:
                out.append(MISS)
            else:
                out.append(hit[2])
        return out

    def ticket(self, targets: Sequence[StoreTarget[Any]]) -> Ticket | None:
        """Before a read hop: the event counts the hop's results are judged against."""
        if self._fd < 0:
            return None
        self._drain()
        return Ticket(tuple(self._events.get(t.path.parent, -1) for t in targets))

    def admit(
        self,
        ticket: Ticket | None,
        watched: Watched | None,
        targets: Sequence[StoreTarget[Any]],
        snapshots: Sequence[Snapshot[Any] | None],
    ) -> None:
        """After a read hop: keep each snapshot whose directory saw no event meanwhile."""
        if ticket is None or watched is None or self._fd < 0:
            return
        for directory, wd, child in watched.added:
            if child is None:
                self._events.setdefault(directory, 0)
            if wd < 0:
                continue  # a store directory not created yet: watched from above
            # the kernel has one watch per directory: a store's directory may also be on
            # the way down to another store, and then it is both (the masks add up)
            known = self._dir_of.get(wd)
            self._dir_of[wd] = (directory, child is None or (known is not None and known[1]))
            if child is not None:
                self._names.setdefault(wd, set()).add(child)
        self._drain()
        if self._failed:
            return
        for target, before, usable, snap in zip(
            targets, ticket.counts, watched.usable, snapshots, strict=True
        ):
            after = self._events.get(target.path.parent)
            # a directory first watched in this hop counts from 0: any event since is seen
            if usable and after is not None and (before == after or (before == -1 and after == 0)):
                self._fresh[target.path] = (target.entry_type, target.version, snap)

    def _drain(self) -> None:
        """Apply every queued event (non-blocking read of the inotify descriptor).

        A zero-timeout ``poll`` first: on a turn nothing is queued, and the kernel says so
        without the read's ``EAGAIN`` becoming a raised and caught ``BlockingIOError``.
        """
        poll = self._poll
        while True:
            if poll is not None and not poll.poll(0):
                return  # nothing queued now: what a read would have said with EAGAIN
            try:
                buf = os.read(self._fd, 64 * 1024)
            except BlockingIOError:
                return
            except OSError:  # never expected: vouch for nothing from now on
                self._failed = True
                self._forget_all()
                return
            offset = 0
            while offset + _EVENT.size <= len(buf):
                wd, mask, _cookie, length = _EVENT.unpack_from(buf, offset)
                name = buf[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0")
                offset += _EVENT.size + length
                self._apply(wd, mask, os.fsdecode(name))

    def _apply(self, wd: int, mask: int, name: str) -> None:
        if mask & _IN_Q_OVERFLOW:
            self._forget_all()
            return
        known = self._dir_of.get(wd)
        if known is None:  # never expected (``admit`` registers before it drains): be safe
            self._forget_all()
            return
        if mask & _GONE:  # a watched directory moved, deleted or unwatched: start over
            self._dir_of.pop(wd, None)
            self._names.pop(wd, None)
            self._forget_all()
            return
        directory, leaf = known
        if leaf:  # any change in a store's own directory
            self._events[directory] = self._events.get(directory, 0) + 1
            for path in [p for p in self._fresh if p.parent == directory]:
                del self._fresh[path]
        if name in self._names.get(wd, ()):  # a directory on the way down changed
            self._forget_all()

    def _forget_all(self) -> None:
        for directory in self._events:
            self._events[directory] += 1
        self._fresh.clear()

    # -- on the IO thread -----------------------------------------------------------------
    def watch(self, targets: Sequence[StoreTarget[Any]]) -> Watched | None:
        """Watch each target's directory and the way up to the store root; run it *before*
        the read in the same hop. Returns the watches for :meth:`admit` (on the loop)."""
        if self._fd < 0 or _LIBC is None:
            return None
        added: list[tuple[Path, int, str | None]] = []
        usable: list[bool] = []
        for target in targets:
            directory = target.path.parent
            if not directory.is_absolute():
                usable.append(False)  # relative to a cwd that may change: take the hop
                continue
            local = self._local.get(directory)
            if local is None:
                local = self._local[directory] = _local_fs(directory)
            ok = False
            if local:
                wd = _LIBC.inotify_add_watch(self._fd, os.fsencode(directory), _LEAF_MASK)
                if wd >= 0:
                    added.append((directory, wd, None))
                    ok = self._watch_ancestors(directory, added, missing=False)
                elif ctypes.get_errno() == errno.ENOENT:  # no such store yet (no STM, say):
                    added.append((directory, -1, None))  # its creation is an event above
                    ok = self._watch_ancestors(directory, added, missing=True)
            usable.append(ok)
        return Watched(tuple(added), tuple(usable))

    def _watch_ancestors(
        self, directory: Path, added: list[tuple[Path, int, str | None]], *, missing: bool
    ) -> bool:
        """Watch every directory above ``directory`` up to the store root (inclusive).

        ``missing``: ``directory`` does not exist, so the nearest existing directory above
        it must be watched (the missing one appearing there is the event that matters).
        """
        root = self._root
        if root is None or not directory.is_relative_to(root) or directory == root:
            return False  # no root to stop at: take the hop for such a file
        assert _LIBC is not None
        child = directory
        while child != root:
            parent = child.parent
            wd = _LIBC.inotify_add_watch(self._fd, os.fsencode(parent), _ANCESTOR_MASK)
            if wd >= 0:
                added.append((parent, wd, child.name))
                missing = False
            elif not (missing and ctypes.get_errno() == errno.ENOENT):
                return False
            child = parent
        return not missing
