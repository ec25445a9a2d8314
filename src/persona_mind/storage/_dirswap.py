"""Stage-and-swap of whole directories: how the Persona pack store changes a pack atomically.

A pack is a directory (``pack.yaml`` + ``agents/*.md`` …), so the file protocol is not
enough. ``stage_directory`` builds the new tree in a hidden sibling and swaps it in by
rename under the ``packs`` lock. Exact steps of :meth:`StagedDirectory.commit`::

    1. every file written through StagedDirectory.write_file is fsynced as written;
       commit() fsyncs every directory of the staged tree, deepest first, then the parent
    2. take the packs lock (<agentDir>/persona/.packs.lock)
    3. if <name> exists: rename <name> -> .<name>.old-<token>; fsync parent
    4. rename .<name>.stage-<token> -> <name>; fsync parent        (the commit point)
    5. remove .<name>.old-<token> (best effort) ; fsync parent
    6. release the lock

Crash safety: after step 1 the staged tree is durable. A crash between 3 and 4 leaves no
``<name>`` but both ``.old-<token>`` and a complete ``.stage-<token>``; ``recover_swaps``
(run under the same lock at the start of every commit and removal, and callable at
startup) finishes such a swap by renaming the stage in (it was durable before step 3). A crash
before step 3 leaves only a stage without a matching old: it is deleted (never committed)
unless its ``.stage.lock`` is still held by a live stager (released only inside step 2).
After step 4 an ``.old-<token>`` beside an existing ``<name>`` is deleted. A ``.trash-``
directory (from ``remove_directory``) is always deleted. The swap is two renames, not
one atomic exchange; the window between them is closed by recovery, which is documented in
``docs/storage.md``.
"""

from __future__ import annotations

import contextlib
import secrets
from pathlib import Path
from types import TracebackType

from persona_mind.storage._atomic import ensure_dir
from persona_mind.storage._errors import UnsafePath
from persona_mind.storage._fs import FileSystem, OsFileSystem
from persona_mind.storage._locks import DEFAULT_LOCK_TIMEOUT, FileLock
from persona_mind.storage._paths import confine, is_windows_reserved

__all__ = ("StagedDirectory", "recover_swaps", "remove_directory", "stage_directory")

_STAGE_LOCK = ".stage.lock"


def _stage_is_live(fs: FileSystem, stage: Path) -> bool:
    lock = stage / _STAGE_LOCK
    if fs.lstat(lock) is None:
        return False  # released at commit: an interrupted commit or a finished abort
    fd = fs.open_lock(lock)
    try:
        if fs.try_lock(fd):
            fs.unlock(fd)
            return False  # its process died while staging
        return True
    finally:
        fs.close(fd)


def _check_name(name: str) -> None:
    if not name or name.startswith(".") or "/" in name or "\\" in name or name in {".", ".."}:
        raise UnsafePath(f"refusing directory name {name!r}: use a plain, non-hidden name")
    if is_windows_reserved(name):
        raise UnsafePath(
            f"refusing directory name {name!r}: it is not a portable file name (Windows "
            'device names such as CON or COM1, trailing dots or spaces, <>:"|?* are refused)'
        )


def _write_all(fs: FileSystem, fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[fs.write(fd, view) :]


class StagedDirectory:
    """A directory being built beside its final place; see the module doc for the protocol."""

    def __init__(
        self,
        parent: Path,
        name: str,
        *,
        lock: Path,
        fs: FileSystem | None = None,
        timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        _check_name(name)
        self.fs: FileSystem = fs if fs is not None else OsFileSystem()
        self.parent = parent
        self.name = name
        self.lock = lock
        self.timeout = timeout
        self.token = secrets.token_hex(6)
        self.path = parent / f".{name}.stage-{self.token}"
        self._dirs: list[Path] = [self.path]
        self._done = False
        ensure_dir(self.fs, parent)
        self.fs.mkdir(self.path)
        # a live stage holds this lock so another process's recovery never deletes it
        self._stage_lock: int | None = self.fs.open_lock(self.path / _STAGE_LOCK)
        self.fs.try_lock(self._stage_lock)

    def write_file(self, relative: str, data: bytes) -> Path:
        """Write and fsync one file of the staged tree (parents created as needed)."""
        target = confine(self.path, *Path(relative).parts)
        current = self.path
        for piece in Path(relative).parts[:-1]:
            current = current / piece
            if self.fs.lstat(current) is None:
                self.fs.mkdir(current)
                self._dirs.append(current)
        fd = self.fs.open_new(target)
        try:
            _write_all(self.fs, fd, data)
            self.fs.fsync(fd)
        finally:
            self.fs.close(fd)
        return target

    def commit(self) -> Path:
        """Swap the staged tree in as ``parent/name`` (steps 1-6); returns the final path."""
        final = self.parent / self.name
        with FileLock(self.fs, self.lock, "packs", purpose="pack swap", timeout=self.timeout):
            recover_swaps(self.parent, fs=self.fs, keep_token=self.token)
            self._drop_stage_lock()
            for directory in sorted(self._dirs, key=lambda p: len(p.parts), reverse=True):
                self.fs.fsync_dir(directory)
            self.fs.fsync_dir(self.parent)
            old = self.parent / f".{self.name}.old-{self.token}"
            moved_old = False
            try:
                if self.fs.lstat(final) is not None:
                    self.fs.replace(final, old)
                    moved_old = True
                    self.fs.fsync_dir(self.parent)
                self.fs.replace(self.path, final)
            except OSError:
                if moved_old and self.fs.lstat(final) is None:
                    with contextlib.suppress(OSError):  # else recovery restores it
                        self.fs.replace(old, final)
                raise
            self._done = True
            self.fs.fsync_dir(self.parent)
            if self.fs.lstat(old) is not None:
                try:
                    self.fs.rmtree(old)
                    self.fs.fsync_dir(self.parent)
                except OSError:
                    pass  # a leftover .old- beside a live <name> is removed by recovery
        return final

    def _drop_stage_lock(self) -> None:
        fd = self._stage_lock
        if fd is not None:
            self.fs.unlink(self.path / _STAGE_LOCK)
            self.fs.unlock(fd)
            self._stage_lock = None
            self.fs.close(fd)

    def abort(self) -> None:
        """Discard the staged tree (nothing visible changes)."""
        if self._stage_lock is not None:
            self._drop_stage_lock()
        if not self._done and self.fs.lstat(self.path) is not None:
            self.fs.rmtree(self.path)
        self._done = True

    def __enter__(self) -> StagedDirectory:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if kind is not None or not self._done:
            self.abort()


def stage_directory(
    parent: Path,
    name: str,
    *,
    lock: Path,
    fs: FileSystem | None = None,
    timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> StagedDirectory:
    """Start staging ``parent/name``; write files, then :meth:`StagedDirectory.commit`.

    Use as ``with stage_directory(dir, "my-pack", lock=layout.packs_lock) as st:
    st.write_file("pack.yaml", data); st.commit()`` — leaving the block without commit
    discards the stage. ``lock`` is the pack-store lock (``Layout.packs_lock``).
    """
    return StagedDirectory(parent, name, lock=lock, fs=fs, timeout=timeout)


def remove_directory(
    parent: Path,
    name: str,
    *,
    lock: Path,
    fs: FileSystem | None = None,
    timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> bool:
    """Remove ``parent/name`` atomically (rename to ``.trash-``, then delete); False if absent."""
    _check_name(name)
    fs = fs if fs is not None else OsFileSystem()
    final = parent / name
    with FileLock(fs, lock, "packs", purpose="pack removal", timeout=timeout):
        recover_swaps(parent, fs=fs)
        if fs.lstat(final) is None:
            return False
        trash = parent / f".{name}.trash-{secrets.token_hex(6)}"
        fs.replace(final, trash)
        fs.fsync_dir(parent)
        try:
            fs.rmtree(trash)
            fs.fsync_dir(parent)
        except OSError:
            pass  # recovery deletes it later
        return True


def recover_swaps(parent: Path, *, fs: FileSystem | None = None, keep_token: str = "") -> list[str]:
    """Finish or undo interrupted swaps in ``parent`` (call under the packs lock).

    Returns a description of each action taken. ``keep_token`` protects the caller's own
    live stage.
    """
    fs = fs if fs is not None else OsFileSystem()
    actions: list[str] = []
    names = fs.listdir(parent)
    stages: dict[tuple[str, str], str] = {}
    olds: dict[tuple[str, str], str] = {}
    for entry in names:
        if not entry.startswith("."):
            continue
        for kind, bucket in (("stage", stages), ("old", olds), ("trash", None)):
            marker = f".{kind}-"
            if marker in entry:
                base, token = entry[1:].rsplit(marker, 1)
                if bucket is None:
                    fs.rmtree(parent / entry)
                    actions.append(f"deleted {entry}")
                else:
                    bucket[(base, token)] = entry
                break
    for (base, token), entry in olds.items():
        final = parent / base
        stage = stages.pop((base, token), None)
        if fs.lstat(final) is None and stage is not None:
            fs.replace(parent / stage, final)  # the stage was durable before the first rename
            actions.append(f"completed swap of {base}")
        elif fs.lstat(final) is None:
            fs.replace(parent / entry, final)
            actions.append(f"restored {base} from {entry}")
            continue
        fs.rmtree(parent / entry)
        actions.append(f"deleted {entry}")
    for (_base, token), entry in stages.items():
        if token != keep_token and not _stage_is_live(fs, parent / entry):
            fs.rmtree(parent / entry)
            actions.append(f"deleted uncommitted {entry}")
    if actions:
        fs.fsync_dir(parent)
    return actions
