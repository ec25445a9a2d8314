"""The pack store's file operations, on the storage engine's durability protocol.

The Persona domain (``persona/``) declares what it needs from the disk as a port
(``persona._fsio.PackFiles``) and never implements it: the runtime (or the CLI) passes a
:class:`DurablePackFiles` in. Atomic writes, the cross-process ``packs`` lock and swap
recovery are the engine's own (temp → fsync → rename → directory fsync), over one
:class:`~persona_mind.storage.FileSystem`, so fault tests inject a failing file system
here and nothing is monkeypatched.

One thing is specific to packs: a pack mutation must *check and change* under one lock
hold (validate the draft, compare digests, swap the tree, write ``store.json``), while
``StagedDirectory.commit`` takes the packs lock itself, and that lock never nests. So
:meth:`DurablePackFiles.swap_in` performs the same two-rename swap with the same
``.<name>.stage-<token>`` / ``.<name>.old-<token>`` markers *inside* the held lock, and
:func:`~persona_mind.storage.recover_swaps` repairs a crash between the renames exactly as
it does for the engine's own swaps.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from persona_mind.storage._atomic import ensure_dir, write_atomic
from persona_mind.storage._dirswap import recover_swaps
from persona_mind.storage._fs import FileSystem, OsFileSystem
from persona_mind.storage._locks import FileLock

__all__ = ("DurablePackFiles",)


class DurablePackFiles:
    """Durable file and directory steps for the pack store (``persona._fsio.PackFiles``).

    Every step is blocking file IO: the runtime runs it on the Store actor's IO thread
    (``Runtime.offload``), the CLI in its own thread of control.
    """

    def __init__(self, fs: FileSystem | None = None) -> None:
        self.fs: FileSystem = fs if fs is not None else OsFileSystem()

    def atomic_write(self, path: Path, data: bytes) -> None:
        """Replace ``path`` with ``data`` durably, creating missing parents."""
        ensure_dir(self.fs, path.parent)
        write_atomic(self.fs, path, data)

    def copy_tree(self, src: Path, dst: Path, files: tuple[str, ...]) -> None:
        """Copy the listed ``files`` (relative to ``src``) into a new ``dst``, fsyncing each
        file and then each new directory, deepest first.

        Symlinks inside the source were validated by the caller to stay inside it; they are
        copied as the regular files they point to, so a copy never carries a link.
        """
        fs = self.fs
        ensure_dir(fs, dst.parent)
        fs.mkdir(dst)
        dirs = [dst]
        for rel in files:
            target = dst / rel
            current = dst
            for piece in Path(rel).parts[:-1]:
                current = current / piece
                if fs.lstat(current) is None:
                    fs.mkdir(current)
                    dirs.append(current)
            data = (src / rel).read_bytes()
            fd = fs.open_new(target)
            try:
                view = memoryview(data)
                while view:
                    view = view[fs.write(fd, view) :]
                fs.fsync(fd)
            finally:
                fs.close(fd)
        for d in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
            fs.fsync_dir(d)

    def remove_tree(self, path: Path) -> None:
        """Remove a tree by renaming it aside first (it disappears at once), then delete it."""
        fs = self.fs
        if fs.lstat(path) is None:
            return
        trash = path.parent / f".{path.name}.trash-{secrets.token_hex(6)}"
        fs.replace(path, trash)
        fs.fsync_dir(path.parent)
        fs.rmtree(trash)

    def swap_in(self, stage: Path, target: Path) -> None:
        """Make the fully written ``stage`` (``.<name>.stage-<token>``) become ``target``.

        Call under the packs lock. The rename of the stage onto the target is the commit
        point; a crash before it leaves the old tree (and a stage the next recovery
        removes), a crash after it the new one.
        """
        fs = self.fs
        token = stage.name.rsplit(".stage-", 1)[1]
        parent = target.parent
        fs.fsync_dir(stage)
        fs.fsync_dir(parent)
        old = parent / f".{target.name}.old-{token}"
        had_old = fs.lstat(target) is not None
        if had_old:
            fs.replace(target, old)
            fs.fsync_dir(parent)
        fs.replace(stage, target)  # the commit point
        fs.fsync_dir(parent)
        if had_old:
            fs.rmtree(old)

    def recover_swaps(self, parent: Path) -> list[str]:
        """Finish or undo interrupted swaps in ``parent`` (under the packs lock)."""
        if self.fs.lstat(parent) is None:
            return []
        return recover_swaps(parent, fs=self.fs)

    @contextmanager
    def packs_lock(self, store_root: Path, purpose: str, timeout: float) -> Iterator[None]:
        """Hold ``<store>/.packs.lock`` for one mutation; ``LockTimeout`` past ``timeout``."""
        ensure_dir(self.fs, store_root)
        lock = FileLock(
            self.fs, store_root / ".packs.lock", "packs", purpose=purpose, timeout=timeout
        )
        lock.acquire()
        try:
            yield
        finally:
            lock.release()

    def listdir(self, path: Path) -> list[str]:
        """The names in a directory (sorted as the file system returns them)."""
        return self.fs.listdir(path)

    def touch(self, path: Path, when: float) -> None:
        """Set ``path``'s times to ``when`` (the caller's clock); a missing file is skipped.

        The times are metadata the retention rule reads back (``Bindings.collect``), not
        data, so they are not fsynced: a lost update only keeps a snapshot longer.
        """
        with contextlib.suppress(FileNotFoundError):
            os.utime(path, (when, when))

    def lstat(self, path: Path) -> os.stat_result | None:
        """``lstat`` of ``path``, or ``None`` when nothing is there."""
        return self.fs.lstat(path)
