"""Durable file and directory operations for the pack store, on ``persona_mind.storage``.

Atomic writes, the cross-process ``packs`` lock and swap recovery come from the storage
engine (same protocol everywhere: temp → fsync → rename → directory fsync). One thing is
local: a pack mutation must *check and change* under one lock hold (validate the draft,
compare digests, swap the tree, write ``store.json``), while the storage helper
``StagedDirectory.commit`` takes the packs lock itself, and that lock never nests. So
:func:`swap_in` performs the same two-rename swap with the same ``.<name>.stage-<token>`` /
``.<name>.old-<token>`` markers *inside* the held lock, and storage's ``recover_swaps``
repairs a crash between the renames exactly as it does for its own swaps.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from persona_mind.persona._errors import PackInvalid, PackStoreBusy, Problem
from persona_mind.storage import (
    FileLock,
    FileSystem,
    LockTimeout,
    OsFileSystem,
    ensure_dir,
    write_atomic,
)
from persona_mind.storage import recover_swaps as _recover_swaps

__all__ = (
    "FS",
    "atomic_write",
    "copy_tree",
    "packs_lock",
    "recover_swaps",
    "remove_tree",
    "stage_path",
    "swap_in",
)

FS: FileSystem = OsFileSystem()
"""The file-system seam every pack-store write goes through."""


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` durably (storage's write protocol)."""
    ensure_dir(FS, path.parent)
    write_atomic(FS, path, data)


def copy_tree(src: Path, dst: Path, files: tuple[str, ...]) -> None:
    """Copy the listed pack-relative ``files`` from ``src`` into a new ``dst``, fsyncing each.

    Symlinks inside the source were validated to stay inside it; they are copied as the
    regular files they point to, so a copy never carries a link. A hard link whose inode
    also has a name outside the copied set is refused again here, right before the bytes
    are read, because a link made after validation would otherwise be copied (issue 15
    item 6).
    """
    _refuse_outside_links(src, files)
    ensure_dir(FS, dst.parent)
    FS.mkdir(dst)
    dirs = [dst]
    for rel in files:
        target = dst / rel
        current = dst
        for piece in Path(rel).parts[:-1]:
            current = current / piece
            if FS.lstat(current) is None:
                FS.mkdir(current)
                dirs.append(current)
        data = (src / rel).read_bytes()
        fd = FS.open_new(target)
        try:
            view = memoryview(data)
            while view:
                view = view[FS.write(fd, view) :]
            FS.fsync(fd)
        finally:
            FS.close(fd)
    for d in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
        FS.fsync_dir(d)


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


def remove_tree(path: Path) -> None:
    """Remove a tree by renaming it aside first, so it disappears at once; then delete it."""
    if FS.lstat(path) is None:
        return
    trash = path.parent / f".{path.name}.trash-{secrets.token_hex(6)}"
    FS.replace(path, trash)
    FS.fsync_dir(path.parent)
    FS.rmtree(trash)


def stage_path(target: Path) -> Path:
    """A fresh staging directory beside ``target`` for :func:`swap_in`."""
    return target.parent / f".{target.name}.stage-{secrets.token_hex(6)}"


def swap_in(stage: Path, target: Path) -> None:
    """Make the fully written ``stage`` become ``target`` (call under the packs lock)."""
    token = stage.name.rsplit(".stage-", 1)[1]
    parent = target.parent
    FS.fsync_dir(stage)
    FS.fsync_dir(parent)
    old = parent / f".{target.name}.old-{token}"
    had_old = FS.lstat(target) is not None
    if had_old:
        FS.replace(target, old)
        FS.fsync_dir(parent)
    FS.replace(stage, target)  # the commit point
    FS.fsync_dir(parent)
    if had_old:
        FS.rmtree(old)


def recover_swaps(parent: Path) -> list[str]:
    """Finish or undo interrupted swaps in ``parent`` (under the packs lock)."""
    if FS.lstat(parent) is None:
        return []
    return _recover_swaps(parent, fs=FS)


@contextmanager
def packs_lock(store_root: Path, purpose: str, timeout: float = 30.0) -> Iterator[None]:
    """Hold the cross-process pack-store lock ``<store>/.packs.lock`` for one mutation."""
    ensure_dir(FS, store_root)
    lock = FileLock(FS, store_root / ".packs.lock", "packs", purpose=purpose, timeout=timeout)
    try:
        lock.acquire()
    except LockTimeout as exc:
        raise PackStoreBusy(
            f"another process is changing the pack store ({exc}); wait and try again"
        ) from exc
    try:
        yield
    finally:
        lock.release()
