"""The pack store's file port: what Persona needs from the disk, injected, never owned.

Persona is a domain package (ARCHITECTURE, "The actor system"): it decides *what* to write
(a pack tree, a draft, ``store.json``, a team snapshot) and the runtime decides *how*. The
durable implementation (temp → fsync → rename → directory fsync, the cross-process
``packs`` lock, swap recovery) is ``persona_mind.storage.DurablePackFiles``; the runtime
and the CLI pass it to :class:`~persona_mind.persona.PackStore`, and tests pass it over a
faulty file system, or a fake. Nothing here is global or patched.

Two things stay on this side of the port because they are Persona's rules, not IO
protocol: the staging-path naming that recovery understands (:func:`stage_path`), and the
hard-link check right before a tree is copied (issue 15 item 6), whose refusal is a
:class:`PackInvalid`. A lock timeout comes back as :class:`PackStoreBusy`.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Protocol

from persona_mind.persona._errors import PackInvalid, PackStoreBusy, Problem
from persona_mind.storage.port import LockTimeout

__all__ = ("PackFiles", "copy_tree", "packs_lock", "read_capped", "stage_path")

_NOFOLLOW_NONBLOCK = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class PackFiles(Protocol):
    """Durable steps on the pack store; each is blocking file IO (run it offloaded).

    Every write is atomic and fsynced before it returns; an ``OSError`` or a
    ``StorageError`` means the step did not complete (the old content is still there).
    """

    def atomic_write(self, path: Path, data: bytes) -> None:
        """Replace ``path`` with ``data`` durably, creating missing parents."""
        ...

    def copy_tree(self, src: Path, dst: Path, files: tuple[str, ...]) -> None:
        """Copy the listed ``src``-relative ``files`` into a new ``dst``, fsyncing each."""
        ...

    def remove_tree(self, path: Path) -> None:
        """Remove a tree (renamed aside first, so it disappears at once); absent is fine."""
        ...

    def swap_in(self, stage: Path, target: Path) -> None:
        """Make the fully written ``stage`` (see :func:`stage_path`) become ``target``."""
        ...

    def recover_swaps(self, parent: Path) -> list[str]:
        """Finish or undo interrupted swaps in ``parent``; what was done, one line each."""
        ...

    def packs_lock(
        self, store_root: Path, purpose: str, timeout: float
    ) -> AbstractContextManager[None]:
        """Hold the cross-process pack-store lock; ``LockTimeout`` when it stays held."""
        ...

    def listdir(self, path: Path) -> list[str]:
        """The names in a directory."""
        ...

    def touch(self, path: Path, when: float) -> None:
        """Set ``path``'s access and modification time to ``when``; absent is fine."""
        ...

    def lstat(self, path: Path) -> os.stat_result | None:
        """``lstat`` of ``path``, or ``None`` when nothing is there."""
        ...


def read_capped(path: Path, cap: int) -> bytes | None:
    """The bytes of a small state file of the pack store (``store.json``, a migration
    receipt), ``None`` when it is larger than ``cap``.

    Classified by ``lstat`` *before* it is opened (issue 24 M1): a socket, FIFO, device,
    directory or symlink raises ``IsADirectoryError`` without an ``open`` that could fail
    with ``ENXIO``, block, or follow the link; the open that follows is non-blocking and
    no-follow, and ``fstat`` re-checks. ``FileNotFoundError`` when absent.
    """
    kind = _special(os.lstat(path).st_mode)
    if kind is not None:
        raise IsADirectoryError(errno.EISDIR, f"{kind}, not a regular file", str(path))
    try:
        fd = os.open(path, _NOFOLLOW_NONBLOCK)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):
            raise IsADirectoryError(exc.errno, "not a regular file", str(path)) from exc
        raise
    try:
        st = os.fstat(fd)
        kind = _special(st.st_mode)
        if kind is not None:
            raise IsADirectoryError(errno.EISDIR, f"{kind}, not a regular file", str(path))
        if st.st_size > cap:
            return None
        data = os.read(fd, cap + 1)
        return None if len(data) > cap else data
    finally:
        os.close(fd)


def _special(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    for test, what in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISLNK, "a symlink"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return what
    return "a device or other special file"


def stage_path(target: Path) -> Path:
    """A fresh staging directory beside ``target`` for ``PackFiles.swap_in``."""
    return target.parent / f".{target.name}.stage-{secrets.token_hex(6)}"


def copy_tree(files: PackFiles, src: Path, dst: Path, rels: tuple[str, ...]) -> None:
    """Copy a validated pack tree, refusing a hard link to a file outside the pack first.

    A hard link whose inode also has a name outside the copied set is refused right before
    the bytes are read, because a link made after validation would otherwise be copied
    (issue 15 item 6).
    """
    _refuse_outside_links(src, rels)
    files.copy_tree(src, dst, rels)


def _refuse_outside_links(src: Path, files: tuple[str, ...]) -> None:
    inodes: dict[tuple[int, int], list[str]] = {}
    nlinks: dict[tuple[int, int], int] = {}
    for rel in files:
        info = os.lstat(src / rel)
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            key = (info.st_dev, info.st_ino)
            inodes.setdefault(key, []).append(rel)
            nlinks[key] = info.st_nlink
    for key, rels in inodes.items():
        if nlinks[key] > len(rels):
            raise PackInvalid(
                src.name,
                (
                    Problem(
                        "hardlink-escape",
                        rels[0],
                        "is a hard link to a file outside the pack; copy the file in instead",
                    ),
                ),
            )


@contextmanager
def packs_lock(files: PackFiles, store_root: Path, purpose: str, timeout: float) -> Iterator[None]:
    """Hold the pack-store lock for one mutation; a timeout is :class:`PackStoreBusy`.

    Only taking the lock is translated: an error inside the held block passes unchanged.
    """
    with ExitStack() as stack:
        try:
            stack.enter_context(files.packs_lock(store_root, purpose, timeout))
        except LockTimeout as exc:
            raise PackStoreBusy(
                f"another process is changing the pack store ({exc}); wait and try again"
            ) from exc
        yield
